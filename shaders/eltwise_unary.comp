#version 450
#extension GL_EXT_control_flow_attributes : require
// Elementwise unary op, dense: y[i] = f(x[i]). The op is one -D OP_<NAME> (the rows of
// shaders/meson.build); A is the arithmetic type (float for float16). OUT_BOOL: y is
// uint8 0/1 (IsNaN, IsInf, TRUE). Parameters: p.alpha, p.beta, p.gamma.
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

A f(A v)
{
    A al = A(p.alpha), be = A(p.beta), ga = A(p.gamma);
#if defined(OP_ABS)
    return v < A(0) ? A(0) - v : v;
#elif defined(OP_NEG)
    return A(0) - v;
#elif defined(OP_SIGN)
    return v > A(0) ? A(1) : v < A(0) ? A(0) - A(1) : v;
#elif defined(OP_RELU)
    return v < A(0) ? A(0) : v;
#elif defined(OP_NOT)
    return v == A(0) ? A(1) : A(0);
#elif defined(OP_BITWISE_NOT)
    return ~v;
#elif defined(OP_SQRT)
    return sqrt(v);
#elif defined(OP_RECIPROCAL)
    return A(1) / v;
#elif defined(OP_FLOOR)
    return floor(v);
#elif defined(OP_CEIL)
    return ceil(v);
#elif defined(OP_ROUND)
    return roundEven(v);
#elif defined(OP_LEAKY_RELU)
    return v < A(0) ? al * v : v;
#elif defined(OP_THRESHOLDED_RELU)
    return v > al ? v : A(0);
#elif defined(OP_HARD_SIGMOID)
    return max(A(0), min(A(1), al * v + be));
#elif defined(OP_HARD_SWISH)
    return v * max(A(0), min(A(1), v / A(6) + A(0.5)));
#elif defined(OP_SOFTSIGN)
    return v / (A(1) + abs(v));
#elif defined(OP_CLIP)
    v = v < al ? al : v;
    return v > be ? be : v;
#elif defined(OP_DIV_SCALAR)
    return v / al;
#elif defined(OP_ADD_SCALAR)
    return v + al;
#elif defined(OP_MUL_SCALAR)
    return v * al;
#elif defined(OP_EXP)
    return exp(v);
#elif defined(OP_LOG)
    return log(v);
#elif defined(OP_ERF)
    return erf_approx(v);
#elif defined(OP_SIN)
    return sin(v);
#elif defined(OP_COS)
    return cos(v);
#elif defined(OP_TAN)
    return tan(v);
#elif defined(OP_ASIN)
    return atan(v, sqrt((1.0 - v) * (1.0 + v))); // asin: lavapipe's loses ~1e-4 near 1
#elif defined(OP_ACOS)
    return atan(sqrt((1.0 - v) * (1.0 + v)), v);
#elif defined(OP_ATAN)
    return atan(v);
#elif defined(OP_SINH)
    return sinh(v);
#elif defined(OP_COSH)
    return cosh(v);
#elif defined(OP_ASINH)
    return asinh(v);
#elif defined(OP_ACOSH)
    return acosh(v);
#elif defined(OP_ATANH)
    return atanh(v);
#elif defined(OP_SOFTPLUS)
    return softplus_f(v);
#elif defined(OP_MISH)
    return v * tanh_f(softplus_f(v));
#elif defined(OP_ELU)
    return v < 0.0 ? al * expm1_f(v) : v;
#elif defined(OP_SELU)
    return ga * (v > 0.0 ? v : al * expm1_f(v));
#elif defined(OP_CELU)
    return v > 0.0 ? v : al * expm1_f(v / al);
#elif defined(OP_GELU)
    return 0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752));
#elif defined(OP_GELU_TANH)
    return 0.5 * v * (1.0 + tanh_f(0.79788456080286536 * (v + 0.044715 * v * v * v)));
#elif defined(OP_SHRINK)
    return v < -al ? v + be : v > al ? v - be : A(0);
#elif defined(OP_SWISH)
    return v / (A(1) + exp(-al * v));
#elif defined(OP_SIGMOID)
    // exp of a non-positive argument only: no overflow for large |v|.
    A e = exp(-abs(v));
    return v >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
#elif defined(OP_TANH)
    return tanh_f(v);
#elif defined(OP_IS_NAN)
    return isnan(v) ? A(1) : A(0);
#elif defined(OP_IS_INF)
    // alpha: detect_positive, beta: detect_negative
    return isinf(v) && (v > A(0) ? al != A(0) : be != A(0)) ? A(1) : A(0);
#elif defined(OP_TRUE)
    return A(1);
#else
#error unknown OP
#endif
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
