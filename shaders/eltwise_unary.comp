#version 450
#extension GL_EXT_control_flow_attributes : require
// Elementwise unary op, dense: y[i] = f(x[i]). The op is -D OP=<ID> (the rows of
// shaders/meson.build), its formula common/eltwise_math.glsl's ELT_F_<ID>; A is the
// arithmetic type (float for float16). OUT_BOOL: y is uint8 0/1 (IsNaN, IsInf, TRUE).
// Parameters: p.alpha, p.beta, p.gamma.
#define PUSH_UNARY
#include "buffers.glsl"
#include "push.h"
#include "eltwise_math.glsl"

#ifdef OUT_BOOL
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define Y uint8_t
#else
#define Y T
#endif

#include "index.glsl"

DECLARE_IN(0, x)
DECLARE_OUT_OF(Y, 1, y)

// Kernel forms that are not ops of the list: Mean's division, scalar steps, and TRUE.
#define ELT_F_DIV_SCALAR(T, v, z, al, be, ga) ((v) / (al))
#define ELT_F_ADD_SCALAR(T, v, z, al, be, ga) ((v) + (al))
#define ELT_F_MUL_SCALAR(T, v, z, al, be, ga) ((v) * (al))
#define ELT_F_TRUE(T, v, z, al, be, ga) T(1)

A f(A v)
{
    A al = A(p.alpha), be = A(p.beta), ga = A(p.gamma);
    return ELT_FORMULA(OP)(A, v, A(0), al, be, ga);
}

void main()
{
    uint g = flat_index(), stride = dense_stride(p.count);
    if (g >= stride)
        return;
    A v[DENSE_ELEMS];
    [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
        uint i = g + e * stride;
        v[e] = i < p.count ? A(x[i]) : A(0);
    }
    [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
        uint i = g + e * stride;
        if (i < p.count)
            y[i] = Y(f(v[e]));
    }
}
