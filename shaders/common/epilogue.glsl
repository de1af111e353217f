// The fused epilogue of the Conv/Gemm/MatMul kernels (graph_epilogue, lib/graph/graph.h;
// the CPU's is op_epilogue_apply in lib/ops/epilogue.c, the same formulas). A kernel
// including this has the residual at binding 3 (`res`, read when epi_flags bit 0) and
// these last members in its push block `p`:
//   uint epi_act;     EPI_* below (graph_epi_act)
//   float epi_alpha, epi_beta;
//   uint epi_flags;   bit 0: a residual; bit 1: added before the activation
#ifndef VKML_EPILOGUE_GLSL
#define VKML_EPILOGUE_GLSL
#include "eltwise_math.glsl"

#define EPI_NONE 0
#define EPI_RELU 1
#define EPI_CLIP 2
#define EPI_SIGMOID 3
#define EPI_HARD_SIGMOID 4
#define EPI_HARD_SWISH 5
#define EPI_LEAKY_RELU 6
#define EPI_SILU 7
#define EPI_GELU 8
#define EPI_GELU_TANH 9
#define EPI_X_HARD_SIGMOID 10

float epi_sigmoid(float v)
{
    float e = exp(-abs(v)); // of a non-positive argument only: no overflow
    return v >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

float epi_act(float v, uint act, float al, float be)
{
    switch (act) {
    case EPI_RELU: return v < 0.0 ? 0.0 : v;
    case EPI_CLIP: return v < al ? al : (v > be ? be : v);
    case EPI_SIGMOID: return epi_sigmoid(v);
    case EPI_HARD_SIGMOID: return max(0.0, min(1.0, al * v + be));
    case EPI_HARD_SWISH: return v * max(0.0, min(1.0, v / 6.0 + 0.5));
    case EPI_LEAKY_RELU: return v < 0.0 ? al * v : v;
    case EPI_SILU: return v * epi_sigmoid(al * v);
    case EPI_GELU: return 0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752));
    case EPI_GELU_TANH:
        return 0.5 * v * (1.0 + tanh_f(0.79788456080286536 * (v + 0.044715 * v * v * v)));
    case EPI_X_HARD_SIGMOID: return v * max(0.0, min(1.0, al * v + be));
    default: return v;
    }
}

// The epilogue of v, the result (bias included), with r its residual (read by the caller
// where epi_flags bit 0 says there is one).
A epilogue_with(A v, float r)
{
#if IS_FLOAT && !defined(DTYPE_F64)
    if (p.epi_act == EPI_NONE && p.epi_flags == 0u)
        return v;
    float x = float(v);
    bool has_res = (p.epi_flags & 1u) != 0u, first = (p.epi_flags & 2u) != 0u;
    if (has_res && first)
        x += r;
    x = epi_act(x, p.epi_act, p.epi_alpha, p.epi_beta);
    if (has_res && !first)
        x += r;
    return A(x);
#else
    return v; // the host fuses float32 and float16 only
#endif
}

// The epilogue of v, the result (bias included) at output element idx.
A epilogue_apply(A v, uint idx)
{
#if IS_FLOAT && !defined(DTYPE_F64)
    return epilogue_with(v, (p.epi_flags & 1u) != 0u ? float(res[idx]) : 0.0);
#else
    return v;
#endif
}

#endif
