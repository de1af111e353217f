// Bindings, push block (push.h's matmul_push) and the store of the
// matrix-product kernels that are not gemm_tiled.comp (matmul.comp, matmul_direct.comp,
// gemv.comp). Element (m, k) of A is at a_batch + m * a_sm + k * a_sk, likewise B and C.
#ifndef VKML_MATMUL_PARAMS_GLSL
#define VKML_MATMUL_PARAMS_GLSL

#define PUSH_MATMUL
#include "push.h"

DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_IN(2, c)
DECLARE_IN(3, res) // the fused residual (epilogue.glsl)
DECLARE_OUT(4, y)

#include "epilogue.glsl"

// What output element `at` (row, col) adds to its product: C's element and the residual,
// each read where the push block says there is one. A kernel that knows its output before
// the product (gemv.comp) reads them first, so that their loads overlap it instead of
// taking a round trip after it.
struct EpiIn {
    A c;
    float res;
};

EpiIn epilogue_inputs(uint row, uint col, uint at)
{
    EpiIn e;
    e.c = p.has_c != 0 ? A(c[row * p.c_sm + col * p.c_sn]) : A(0);
    e.res = 0.0;
#if IS_FLOAT && !defined(DTYPE_F64)
    if (EPI_HAS_RESIDUAL)
        e.res = float(res[at]);
#endif
    return e;
}

// alpha * acc + beta * C, then the fused epilogue. Integer variants: the host only sends
// alpha = beta = 1 (exact) and no fused epilogue.
T epilogue_of(A acc, EpiIn e)
{
#if IS_FLOAT
    A v = A(p.alpha) * acc;
    if (p.has_c != 0)
        v += A(p.beta) * e.c;
#else
    A v = acc;
    if (p.has_c != 0)
        v += e.c;
#endif
    return T(epilogue_with(v, e.res));
}

// The same with C and the residual read now.
T epilogue(A acc, uint row, uint col, uint at)
{
    return epilogue_of(acc, epilogue_inputs(row, col, at));
}

// A's and B's element offsets of batch `batch` (gl_WorkGroupID.z), broadcast dims walked.
void batch_offsets(uint batch, out uint a_off, out uint b_off)
{
    uint rem = batch;
    a_off = 0;
    b_off = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_off += idx * p.a_batch_strides[d];
        b_off += idx * p.b_batch_strides[d];
    }
}

#endif
