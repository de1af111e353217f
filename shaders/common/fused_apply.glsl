// The op formulas of a fused elementwise group (common/fused_program.h's FUSED_OP_*), shared
// by the interpreter (fused_eltwise.comp) and the shaders generated per group
// (lib/vulkan/vk_fused_gen.c), which call apply() with constant op codes and parameters
// that the compiler folds. The formulas are those of eltwise_unary/binary.comp.
#ifndef VKML_FUSED_APPLY_GLSL
#define VKML_FUSED_APPLY_GLSL
#include "eltwise_math.glsl"
#include "div_rn.glsl"
#include "fused_program.h"

float sigmoid_f(float v)
{
    // exp of a non-positive argument only: no overflow for large |v|.
    float e = exp(-abs(v));
    return v >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

// One function per op, fused_op_<code> (FUSED_FN(FUSED_OP_ADD) is fused_op_25), all of
// the same signature: v the first source, z the second (0 for unary ops), al, be, ga the
// instruction's parameters. The generated shaders call them by name. Each result is
// `precise`: no a * b + c contracted into an fma across two instructions, which the driver
// could do in a generated shader's straight-line code but never in the interpreter's loop,
// so that both give the same bits.
#define FUSED_FN_NAME(code) fused_op_##code
#define FUSED_FN(code) FUSED_FN_NAME(code)

float FUSED_FN(FUSED_OP_ADD)(float v, float z, float al, float be, float ga)
{
    precise float r = v + z;
    return r;
}

float FUSED_FN(FUSED_OP_MUL)(float v, float z, float al, float be, float ga)
{
    precise float r = v * z;
    return r;
}

float FUSED_FN(FUSED_OP_SUB)(float v, float z, float al, float be, float ga)
{
    precise float r = v - z;
    return r;
}

float FUSED_FN(FUSED_OP_DIV)(float v, float z, float al, float be, float ga)
{
    precise float r = div_rn(v, z);
    return r;
}

float FUSED_FN(FUSED_OP_RELU)(float v, float z, float al, float be, float ga)
{
    precise float r = v < 0.0 ? 0.0 : v;
    return r;
}

float FUSED_FN(FUSED_OP_SIGMOID)(float v, float z, float al, float be, float ga)
{
    precise float r = sigmoid_f(v);
    return r;
}

float FUSED_FN(FUSED_OP_ABS)(float v, float z, float al, float be, float ga)
{
    precise float r = abs(v);
    return r;
}

float FUSED_FN(FUSED_OP_NEG)(float v, float z, float al, float be, float ga)
{
    precise float r = -v;
    return r;
}

float FUSED_FN(FUSED_OP_EXP)(float v, float z, float al, float be, float ga)
{
    precise float r = exp(v);
    return r;
}

float FUSED_FN(FUSED_OP_LOG)(float v, float z, float al, float be, float ga)
{
    precise float r = log(v);
    return r;
}

float FUSED_FN(FUSED_OP_SQRT)(float v, float z, float al, float be, float ga)
{
    precise float r = sqrt(v);
    return r;
}

float FUSED_FN(FUSED_OP_RECIPROCAL)(float v, float z, float al, float be, float ga)
{
    precise float r = 1.0 / v;
    return r;
}

float FUSED_FN(FUSED_OP_FLOOR)(float v, float z, float al, float be, float ga)
{
    precise float r = floor(v);
    return r;
}

float FUSED_FN(FUSED_OP_CEIL)(float v, float z, float al, float be, float ga)
{
    precise float r = ceil(v);
    return r;
}

float FUSED_FN(FUSED_OP_ERF)(float v, float z, float al, float be, float ga)
{
    precise float r = erf_approx(v);
    return r;
}

float FUSED_FN(FUSED_OP_SOFTPLUS)(float v, float z, float al, float be, float ga)
{
    precise float r = softplus_f(v);
    return r;
}

float FUSED_FN(FUSED_OP_SOFTSIGN)(float v, float z, float al, float be, float ga)
{
    precise float r = v / (1.0 + abs(v));
    return r;
}

float FUSED_FN(FUSED_OP_ELU)(float v, float z, float al, float be, float ga)
{
    precise float r = v < 0.0 ? al * expm1_f(v) : v;
    return r;
}

float FUSED_FN(FUSED_OP_SELU)(float v, float z, float al, float be, float ga)
{
    precise float r = ga * (v > 0.0 ? v : al * expm1_f(v));
    return r;
}

float FUSED_FN(FUSED_OP_CELU)(float v, float z, float al, float be, float ga)
{
    precise float r = v > 0.0 ? v : al * expm1_f(v / al);
    return r;
}

float FUSED_FN(FUSED_OP_LEAKY_RELU)(float v, float z, float al, float be, float ga)
{
    precise float r = v < 0.0 ? al * v : v;
    return r;
}

float FUSED_FN(FUSED_OP_HARD_SIGMOID)(float v, float z, float al, float be, float ga)
{
    precise float r = max(0.0, min(1.0, al * v + be));
    return r;
}

float FUSED_FN(FUSED_OP_HARD_SWISH)(float v, float z, float al, float be, float ga)
{
    precise float r = v * max(0.0, min(1.0, v / 6.0 + 0.5));
    return r;
}

float FUSED_FN(FUSED_OP_GELU)(float v, float z, float al, float be, float ga)
{
    precise float r = 0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752));
    return r;
}

float FUSED_FN(FUSED_OP_GELU_TANH)(float v, float z, float al, float be, float ga)
{
    precise float r = 0.5 * v * (1.0 + tanh_f(0.79788456080286536 * (v + 0.044715 * v * v * v)));
    return r;
}

float FUSED_FN(FUSED_OP_TANH)(float v, float z, float al, float be, float ga)
{
    precise float r = tanh_f(v);
    return r;
}

float FUSED_FN(FUSED_OP_MISH)(float v, float z, float al, float be, float ga)
{
    precise float r = v * tanh_f(softplus_f(v));
    return r;
}

float FUSED_FN(FUSED_OP_CLIP)(float v, float z, float al, float be, float ga)
{
    v = v < al ? al : v;
    precise float r = v > be ? be : v;
    return r;
}

float FUSED_FN(FUSED_OP_POW)(float v, float z, float al, float be, float ga)
{
    precise float r = pow_c(v, z);
    return r;
}

float FUSED_FN(FUSED_OP_MIN)(float v, float z, float al, float be, float ga)
{
    precise float r = isnan(v) || v < z ? v : z;
    return r;
}

float FUSED_FN(FUSED_OP_MAX)(float v, float z, float al, float be, float ga)
{
    precise float r = isnan(v) || v > z ? v : z;
    return r;
}

float FUSED_FN(FUSED_OP_PRELU)(float v, float z, float al, float be, float ga)
{
    precise float r = v < 0.0 ? v * z : v;
    return r;
}

float FUSED_FN(FUSED_OP_IDENTITY)(float v, float z, float al, float be, float ga)
{
    precise float r = v;
    return r;
}

// The interpreter's dispatch on the op code.
float apply(int op, float v, float z, float al, float be, float ga)
{
    switch (op) {
    // Mesa lowers a switch to a ladder of ifs: the common ops first.
    case FUSED_OP_ADD: return FUSED_FN(FUSED_OP_ADD)(v, z, al, be, ga);
    case FUSED_OP_MUL: return FUSED_FN(FUSED_OP_MUL)(v, z, al, be, ga);
    case FUSED_OP_SUB: return FUSED_FN(FUSED_OP_SUB)(v, z, al, be, ga);
    case FUSED_OP_DIV: return FUSED_FN(FUSED_OP_DIV)(v, z, al, be, ga);
    case FUSED_OP_RELU: return FUSED_FN(FUSED_OP_RELU)(v, z, al, be, ga);
    case FUSED_OP_SIGMOID: return FUSED_FN(FUSED_OP_SIGMOID)(v, z, al, be, ga);
    case FUSED_OP_ABS: return FUSED_FN(FUSED_OP_ABS)(v, z, al, be, ga);
    case FUSED_OP_NEG: return FUSED_FN(FUSED_OP_NEG)(v, z, al, be, ga);
    case FUSED_OP_EXP: return FUSED_FN(FUSED_OP_EXP)(v, z, al, be, ga);
    case FUSED_OP_LOG: return FUSED_FN(FUSED_OP_LOG)(v, z, al, be, ga);
    case FUSED_OP_SQRT: return FUSED_FN(FUSED_OP_SQRT)(v, z, al, be, ga);
    case FUSED_OP_RECIPROCAL: return FUSED_FN(FUSED_OP_RECIPROCAL)(v, z, al, be, ga);
    case FUSED_OP_FLOOR: return FUSED_FN(FUSED_OP_FLOOR)(v, z, al, be, ga);
    case FUSED_OP_CEIL: return FUSED_FN(FUSED_OP_CEIL)(v, z, al, be, ga);
    case FUSED_OP_ERF: return FUSED_FN(FUSED_OP_ERF)(v, z, al, be, ga);
    case FUSED_OP_SOFTPLUS: return FUSED_FN(FUSED_OP_SOFTPLUS)(v, z, al, be, ga);
    case FUSED_OP_SOFTSIGN: return FUSED_FN(FUSED_OP_SOFTSIGN)(v, z, al, be, ga);
    case FUSED_OP_ELU: return FUSED_FN(FUSED_OP_ELU)(v, z, al, be, ga);
    case FUSED_OP_SELU: return FUSED_FN(FUSED_OP_SELU)(v, z, al, be, ga);
    case FUSED_OP_CELU: return FUSED_FN(FUSED_OP_CELU)(v, z, al, be, ga);
    case FUSED_OP_LEAKY_RELU: return FUSED_FN(FUSED_OP_LEAKY_RELU)(v, z, al, be, ga);
    case FUSED_OP_HARD_SIGMOID: return FUSED_FN(FUSED_OP_HARD_SIGMOID)(v, z, al, be, ga);
    case FUSED_OP_HARD_SWISH: return FUSED_FN(FUSED_OP_HARD_SWISH)(v, z, al, be, ga);
    case FUSED_OP_GELU: return FUSED_FN(FUSED_OP_GELU)(v, z, al, be, ga);
    case FUSED_OP_GELU_TANH: return FUSED_FN(FUSED_OP_GELU_TANH)(v, z, al, be, ga);
    case FUSED_OP_TANH: return FUSED_FN(FUSED_OP_TANH)(v, z, al, be, ga);
    case FUSED_OP_MISH: return FUSED_FN(FUSED_OP_MISH)(v, z, al, be, ga);
    case FUSED_OP_CLIP: return FUSED_FN(FUSED_OP_CLIP)(v, z, al, be, ga);
    case FUSED_OP_POW: return FUSED_FN(FUSED_OP_POW)(v, z, al, be, ga);
    case FUSED_OP_MIN: return FUSED_FN(FUSED_OP_MIN)(v, z, al, be, ga);
    case FUSED_OP_MAX: return FUSED_FN(FUSED_OP_MAX)(v, z, al, be, ga);
    case FUSED_OP_PRELU: return FUSED_FN(FUSED_OP_PRELU)(v, z, al, be, ga);
    default: return FUSED_FN(FUSED_OP_IDENTITY)(v, z, al, be, ga);
    }
}

#endif
