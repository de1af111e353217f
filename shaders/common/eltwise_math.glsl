// THE GLSL formulas of the elementwise ops (C: lib/ops/eltwise_formula.h), used by
// eltwise_unary.comp, the fused programs (fused_apply.glsl: the interpreter and the shaders
// lib/vulkan/vk_fused_gen.c generates) and the Conv/Gemm/MatMul epilogues (epilogue.glsl);
// and the float helpers GLSL lacks, which eltwise_binary.comp uses too.
//
// ELT_F_<ID>(T, v, z, al, be, ga) is op ELT_<ID> (eltwise_ops.h) as an expression of type T:
// v the first source, z the second (T(0) for unary ops), al, be, ga the op's parameters
// (alpha, beta, gamma). Macros, not functions: one formula serves every type a kernel
// computes in (float, double, integers), and a caller's `precise` reaches the arithmetic
// inside. The float-only ones call the float helpers below.
#ifndef VKML_ELTWISE_MATH_GLSL
#define VKML_ELTWISE_MATH_GLSL
#include "eltwise_ops.h"

// erf to about 1.3e-7 relative (fits made for vkml by least squares on Chebyshev nodes):
// |x| <= 1: x * P(x^2), P in u = 2x^2 - 1; 1 < |x| < 4: 1 - exp(Q(|x|) - x^2) with
// Q(t) ~ log(erfc(t)) + t^2 in u = (2t - 5) / 3; beyond 4, erf rounds to +-1 in float.
float erf_approx(float x)
{
    float t = abs(x);
    if (t <= 1.0) {
        float u = 2.0 * t * t - 1.0;
        float r = -7.557491699e-08;
        r = r * u + 1.231640113e-06;
        r = r * u - 1.753682409e-05;
        r = r * u + 2.175119880e-04;
        r = r * u - 2.285485622e-03;
        r = r * u + 1.985249855e-02;
        r = r * u - 1.405360848e-01;
        r = r * u + 9.654687643e-01;
        return x * r;
    }
    if (t >= 4.0)
        return sign(x);
    float u = (2.0 * t - 5.0) / 3.0;
    float q = 1.537463504e-06;
    q = q * u - 2.367065690e-06;
    q = q * u - 6.758696145e-06;
    q = q * u + 4.728429849e-05;
    q = q * u - 2.174813708e-04;
    q = q * u + 8.763929363e-04;
    q = q * u - 3.196593141e-03;
    q = q * u + 1.096297335e-02;
    q = q * u - 3.664597869e-02;
    q = q * u + 1.262390763e-01;
    q = q * u - 5.290211439e-01;
    q = q * u - 1.556815267e+00;
    return sign(x) * (1.0 - exp(q - t * t));
}

// pow with C's rules where GLSL's leaves them undefined: negative bases with integral
// exponents, zero bases, y == 0.
float pow_c(float x, float y)
{
    if (y == 0.0)
        return 1.0;
    float r = pow(abs(x), y);
    if (x < 0.0) {
        if (floor(y) != y)
            return uintBitsToFloat(0x7fc00000u); // NaN
        if (mod(y, 2.0) == 1.0)
            r = -r;
    }
    return r;
}

// log(1 + z) and exp(x) - 1 accurate for small arguments: Taylor series near 0 (error
// under 1e-9 relative there), where exp and log of numbers near 1 lose the low bits
// (lavapipe's log has ~1e-7 absolute error, too much for log(1 + 1e-4)).
float log1p_f(float z)
{
    if (abs(z) >= 0.1)
        return log(1.0 + z);
    float r = 1.0 / 9.0;
    r = r * -z + 1.0 / 8.0;
    r = r * -z + 1.0 / 7.0;
    r = r * -z + 1.0 / 6.0;
    r = r * -z + 1.0 / 5.0;
    r = r * -z + 1.0 / 4.0;
    r = r * -z + 1.0 / 3.0;
    r = r * -z + 1.0 / 2.0;
    r = r * -z + 1.0;
    return r * z;
}

float expm1_f(float x)
{
    if (abs(x) >= 0.5)
        return exp(x) - 1.0;
    float r = 1.0 / 362880.0;
    r = r * x + 1.0 / 40320.0;
    r = r * x + 1.0 / 5040.0;
    r = r * x + 1.0 / 720.0;
    r = r * x + 1.0 / 120.0;
    r = r * x + 1.0 / 24.0;
    r = r * x + 1.0 / 6.0;
    r = r * x + 1.0 / 2.0;
    r = r * x + 1.0;
    return r * x;
}

// tanh from expm1 of a non-positive argument: no overflow, full precision near 0.
float tanh_f(float x)
{
    float e = expm1_f(-2.0 * abs(x));
    return sign(x) * (-e / (2.0 + e));
}

// log(1 + exp(x)) without overflow.
float softplus_f(float x)
{
    return x > 0.0 ? x + log1p_f(exp(-x)) : log1p_f(exp(x));
}

// exp of a non-positive argument only: no overflow for large |v|.
float sigmoid_f(float v)
{
    float e = exp(-abs(v));
    return v >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

#define ELT_F_IDENTITY(T, v, z, al, be, ga) (v)
#define ELT_F_ADD(T, v, z, al, be, ga) ((v) + (z))
#define ELT_F_MUL(T, v, z, al, be, ga) ((v) * (z))
#define ELT_F_SUB(T, v, z, al, be, ga) ((v) - (z))
#define ELT_F_DIV(T, v, z, al, be, ga) div_rn(v, z) // div_rn.glsl
#define ELT_F_RELU(T, v, z, al, be, ga) ((v) < T(0) ? T(0) : (v))
#define ELT_F_SIGMOID(T, v, z, al, be, ga) sigmoid_f(v)
#if defined(IS_FLOAT) && !IS_FLOAT // integers (unsigned ones have no abs())
#define ELT_F_ABS(T, v, z, al, be, ga) ((v) < T(0) ? T(0) - (v) : (v))
#else
#define ELT_F_ABS(T, v, z, al, be, ga) abs(v)
#endif
#define ELT_F_NEG(T, v, z, al, be, ga) (-(v))
#define ELT_F_EXP(T, v, z, al, be, ga) exp(v)
#define ELT_F_LOG(T, v, z, al, be, ga) log(v)
#define ELT_F_SQRT(T, v, z, al, be, ga) sqrt(v)
#define ELT_F_RECIPROCAL(T, v, z, al, be, ga) (T(1) / (v))
#define ELT_F_FLOOR(T, v, z, al, be, ga) floor(v)
#define ELT_F_CEIL(T, v, z, al, be, ga) ceil(v)
#define ELT_F_ERF(T, v, z, al, be, ga) erf_approx(v)
#define ELT_F_SOFTPLUS(T, v, z, al, be, ga) softplus_f(v)
#define ELT_F_SOFTSIGN(T, v, z, al, be, ga) ((v) / (T(1) + abs(v)))
#define ELT_F_ELU(T, v, z, al, be, ga) ((v) < 0.0 ? (al) * expm1_f(v) : (v))
#define ELT_F_SELU(T, v, z, al, be, ga) ((ga) * ((v) > 0.0 ? (v) : (al) * expm1_f(v)))
#define ELT_F_CELU(T, v, z, al, be, ga) ((v) > 0.0 ? (v) : (al) * expm1_f((v) / (al)))
#define ELT_F_LEAKY_RELU(T, v, z, al, be, ga) ((v) < T(0) ? (al) * (v) : (v))
#define ELT_F_HARD_SIGMOID(T, v, z, al, be, ga) max(T(0), min(T(1), (al) * (v) + (be)))
#define ELT_F_HARD_SWISH(T, v, z, al, be, ga) ((v) * max(T(0), min(T(1), (v) / T(6) + T(0.5))))
#define ELT_F_GELU(T, v, z, al, be, ga) (0.5 * (v) * (1.0 + erf_approx((v) * 0.70710678118654752)))
#define ELT_F_GELU_TANH(T, v, z, al, be, ga) \
    (0.5 * (v) * (1.0 + tanh_f(0.79788456080286536 * ((v) + 0.044715 * (v) * (v) * (v)))))
#define ELT_F_TANH(T, v, z, al, be, ga) tanh_f(v)
#define ELT_F_MISH(T, v, z, al, be, ga) ((v) * tanh_f(softplus_f(v)))
// the lower bound, then the upper: max wins when min > max, like numpy
#define ELT_F_CLIP(T, v, z, al, be, ga) \
    (((v) < (al) ? (al) : (v)) > (be) ? (be) : ((v) < (al) ? (al) : (v)))
#define ELT_F_POW(T, v, z, al, be, ga) pow_c(v, z)
#define ELT_F_MIN(T, v, z, al, be, ga) (isnan(v) || (v) < (z) ? (v) : (z))
#define ELT_F_MAX(T, v, z, al, be, ga) (isnan(v) || (v) > (z) ? (v) : (z))
#define ELT_F_PRELU(T, v, z, al, be, ga) ((v) < T(0) ? (v) * (z) : (v))
#define ELT_F_SILU(T, v, z, al, be, ga) ((v) * sigmoid_f((al) * (v)))
#define ELT_F_X_HARD_SIGMOID(T, v, z, al, be, ga) ((v) * ELT_F_HARD_SIGMOID(T, v, z, al, be, ga))
#define ELT_F_ROUND(T, v, z, al, be, ga) roundEven(v)
#define ELT_F_SIGN(T, v, z, al, be, ga) ((v) > T(0) ? T(1) : (v) < T(0) ? T(0) - T(1) : (v))
#define ELT_F_SIN(T, v, z, al, be, ga) sin(v)
#define ELT_F_COS(T, v, z, al, be, ga) cos(v)
#define ELT_F_TAN(T, v, z, al, be, ga) tan(v)
// asin and acos through atan: lavapipe's asin loses ~1e-4 near 1
#define ELT_F_ASIN(T, v, z, al, be, ga) atan(v, sqrt((1.0 - (v)) * (1.0 + (v))))
#define ELT_F_ACOS(T, v, z, al, be, ga) atan(sqrt((1.0 - (v)) * (1.0 + (v))), v)
#define ELT_F_ATAN(T, v, z, al, be, ga) atan(v)
#define ELT_F_SINH(T, v, z, al, be, ga) sinh(v)
#define ELT_F_COSH(T, v, z, al, be, ga) cosh(v)
#define ELT_F_ASINH(T, v, z, al, be, ga) asinh(v)
#define ELT_F_ACOSH(T, v, z, al, be, ga) acosh(v)
#define ELT_F_ATANH(T, v, z, al, be, ga) atanh(v)
#define ELT_F_THRESHOLDED_RELU(T, v, z, al, be, ga) ((v) > (al) ? (v) : T(0))
#define ELT_F_SHRINK(T, v, z, al, be, ga) \
    ((v) < -(al) ? (v) + (be) : (v) > (al) ? (v) - (be) : T(0))
#define ELT_F_SWISH(T, v, z, al, be, ga) ((v) / (T(1) + exp(-(al) * (v))))
#define ELT_F_NOT(T, v, z, al, be, ga) ((v) == T(0) ? T(1) : T(0))
#define ELT_F_BITWISE_NOT(T, v, z, al, be, ga) (~(v))
#define ELT_F_IS_NAN(T, v, z, al, be, ga) (isnan(v) ? T(1) : T(0))
// alpha: detect_positive, beta: detect_negative
#define ELT_F_IS_INF(T, v, z, al, be, ga) \
    (isinf(v) && ((v) > T(0) ? (al) != T(0) : (be) != T(0)) ? T(1) : T(0))

// ELT_FORMULA(ID) is ELT_F_<ID>, for an ID given by a macro (eltwise_unary.comp's OP).
#define ELT_FORMULA_(id) ELT_F_##id
#define ELT_FORMULA(id) ELT_FORMULA_(id)

#endif
