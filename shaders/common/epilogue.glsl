// The fused epilogue of the Conv/Gemm/MatMul kernels (graph_epilogue, lib/graph/graph.h;
// the CPU's is op_epilogue_apply in lib/ops/epilogue.c, the same formulas). A kernel
// including this has the residual at binding 3 (`res`, read when epi_flags bit 0) and
// these last members in its push block `p`:
//   uint epi_act;     an ELT_* op code (graph_epilogue.act), ELT_IDENTITY: none
//   float epi_alpha, epi_beta;
//   uint epi_flags;   bit 0: a residual; bit 1: added before the activation
// The pipeline may fix epi_act and epi_flags as specialization constants 0 and 1
// (lib/vulkan/vk_pipeline.c, vk_pipeline_get_epilogue): the driver then compiles that
// activation alone, straight code, rather than a branch over every activation for each
// result. Left at EPI_FROM_PUSH, both are read from the push block.
#ifndef VKML_EPILOGUE_GLSL
#define VKML_EPILOGUE_GLSL
#include "eltwise_math.glsl"

#define EPI_FROM_PUSH 0xffffffffu
layout(constant_id = 0) const uint EPI_SPEC_ACT = EPI_FROM_PUSH;
layout(constant_id = 1) const uint EPI_SPEC_FLAGS = 0u;
// The epilogue's activation code and flags, constants where the pipeline fixed them.
#define EPI_ACT (EPI_SPEC_ACT != EPI_FROM_PUSH ? EPI_SPEC_ACT : p.epi_act)
#define EPI_FLAGS (EPI_SPEC_ACT != EPI_FROM_PUSH ? EPI_SPEC_FLAGS : p.epi_flags)
// Whether the epilogue adds a residual (binding 3).
#define EPI_HAS_RESIDUAL ((EPI_FLAGS & 1u) != 0u)

// The activation: eltwise_ops.h's ops whose fuse is FUSE1_EPI or EPI, with
// eltwise_math.glsl's formulas; ELT_IDENTITY (none) and any other code leave v.
#define EPI_CASE(id) case ELT_##id: return ELT_F_##id(float, v, 0.0, al, be, 0.0);
#define EPI_CASE_NOFUSE(id)
#define EPI_CASE_FUSE1(id)
#define EPI_CASE_FUSE2(id)
#define EPI_CASE_FUSE1_EPI(id) EPI_CASE(id)
#define EPI_CASE_EPI(id) EPI_CASE(id)
#define EPI_CASE_OF(id, name, kind, fuse, code, gpu) EPI_CASE_##fuse(id)
float epi_act(float v, uint act, float al, float be)
{
    switch (int(act)) {
    ELTWISE_OPS(EPI_CASE_OF)
    default: return v;
    }
}

// The epilogue of v, the result (bias included), with r its residual (read by the caller
// where epi_flags bit 0 says there is one).
A epilogue_with(A v, float r)
{
#if IS_FLOAT && !defined(DTYPE_F64)
    if (EPI_ACT == uint(ELT_IDENTITY) && EPI_FLAGS == 0u)
        return v;
    float x = float(v);
    bool has_res = EPI_HAS_RESIDUAL, first = (EPI_FLAGS & 2u) != 0u;
    if (has_res && first)
        x += r;
    x = epi_act(x, EPI_ACT, p.epi_alpha, p.epi_beta);
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
    return epilogue_with(v, EPI_HAS_RESIDUAL ? float(res[idx]) : 0.0);
#else
    return v;
#endif
}

#endif
