// The instructions of a fused elementwise program (common/fused_program.h), shared by the
// interpreter (fused_eltwise.comp) and the shaders generated per group
// (lib/vulkan/vk_fused_gen.c), which call fused_<ID>() with constant parameters that the
// compiler folds. Made from eltwise_ops.h's list and eltwise_math.glsl's formulas: one
// function per op whose fuse is FUSE1, FUSE1_EPI or FUSE2.
#ifndef VKML_FUSED_APPLY_GLSL
#define VKML_FUSED_APPLY_GLSL
#include "eltwise_math.glsl"
#include "div_rn.glsl"
#include "fused_program.h"

// fused_<ID>(v, z, al, be, ga): v the first source, z the second (0 for one-source ops),
// al, be, ga the instruction's parameters. Each result is `precise`: no a * b + c
// contracted into an fma across two instructions, which the driver could do in a
// generated shader's straight-line code but never in the interpreter's loop, so that both
// give the same bits.
#define FUSED_FN(id)                                                                       \
    float fused_##id(float v, float z, float al, float be, float ga)                       \
    {                                                                                      \
        precise float r = ELT_F_##id(float, v, z, al, be, ga);                             \
        return r;                                                                          \
    }
#define FUSED_FN_NOFUSE(id)
#define FUSED_FN_EPI(id)
#define FUSED_FN_FUSE1(id) FUSED_FN(id)
#define FUSED_FN_FUSE1_EPI(id) FUSED_FN(id)
#define FUSED_FN_FUSE2(id) FUSED_FN(id)
#define FUSED_FN_OF(id, name, kind, fuse, code, gpu) FUSED_FN_##fuse(id)
ELTWISE_OPS(FUSED_FN_OF)

// Sources an op code reads: 2 for FUSE2 ops, else 1.
#define FUSED_ARITY_CASE_NOFUSE(id)
#define FUSED_ARITY_CASE_EPI(id)
#define FUSED_ARITY_CASE_FUSE1(id)
#define FUSED_ARITY_CASE_FUSE1_EPI(id)
#define FUSED_ARITY_CASE_FUSE2(id) case ELT_##id:
#define FUSED_ARITY_CASE(id, name, kind, fuse, code, gpu) FUSED_ARITY_CASE_##fuse(id)
int fused_arity(int op)
{
    switch (op) {
    ELTWISE_OPS(FUSED_ARITY_CASE)
        return 2;
    default: return 1;
    }
}

// The interpreter's dispatch on the op code, in list order (Mesa lowers a switch to a
// ladder of ifs: the list puts the common ops first); an unknown code copies v.
#define FUSED_CASE(id) case ELT_##id: return fused_##id(v, z, al, be, ga);
#define FUSED_CASE_NOFUSE(id)
#define FUSED_CASE_EPI(id)
#define FUSED_CASE_FUSE1(id) FUSED_CASE(id)
#define FUSED_CASE_FUSE1_EPI(id) FUSED_CASE(id)
#define FUSED_CASE_FUSE2(id) FUSED_CASE(id)
#define FUSED_CASE_OF(id, name, kind, fuse, code, gpu) FUSED_CASE_##fuse(id)
float apply(int op, float v, float z, float al, float be, float ga)
{
    switch (op) {
    ELTWISE_OPS(FUSED_CASE_OF)
    default: return fused_IDENTITY(v, z, al, be, ga);
    }
}

#endif
