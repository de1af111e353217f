#pragma once
/*
 * THE C formulas of the elementwise ops on floats: y = f(a, b) per op code, with the op's
 * parameters al, be, ga (eltwise_params alpha, beta, gamma; an epilogue's alpha, beta).
 * The CPU elementwise kernels run them a block at a time (lib/cpu/eltwise_math.c, which
 * the CPU fused interpreter calls too) and the CPU epilogues per element
 * (lib/ops/epilogue.c). Floats follow C's libm. Ops with no float formula (comparisons,
 * bitwise ops, Cast) give a. The GPU's are shaders/common/eltwise_math.glsl's ELT_F_<ID>.
 * Always inlined, so that a loop calling it with a constant op keeps only that op's
 * formula (left to itself, GCC calls the whole switch per element: 5 ns a Relu).
 */
#include "ops/elementwise.h"

#include <math.h>

#define ELT_INLINE static inline __attribute__((always_inline))

/* fn(op, a, b, al, be, ga) of C, float or double; F(name) the libm function of that type. */
#define ELT_DEFINE_FORMULA(fn, C, F)                                                               \
    ELT_INLINE C fn##_sigmoid(C a)                                                                 \
    {                                                                                              \
        return a >= 0 ? 1 / (1 + F(exp)(-a)) : F(exp)(a) / (1 + F(exp)(a));                        \
    }                                                                                              \
    ELT_INLINE C fn##_softplus(C a)                                                                \
    {                                                                                              \
        return a > 0 ? a + F(log1p)(F(exp)(-a)) : F(log1p)(F(exp)(a));                             \
    }                                                                                              \
    ELT_INLINE C fn##_hard_sigmoid(C a, C al, C be)                                                \
    {                                                                                              \
        return F(fmax)(0, F(fmin)(1, al * a + be));                                                \
    }                                                                                              \
    ELT_INLINE C fn(eltwise_op op, C a, C b, C al, C be, C ga)                                     \
    {                                                                                              \
        switch (op) {                                                                              \
        case ELT_ADD: return a + b;                                                                \
        case ELT_MUL: return a * b;                                                                \
        case ELT_SUB: return a - b;                                                                \
        case ELT_DIV: return a / b;                                                                \
        case ELT_RELU: return a < 0 ? 0 : a;                                                       \
        case ELT_SIGMOID: return fn##_sigmoid(a);                                                  \
        case ELT_ABS: return F(fabs)(a);                                                           \
        case ELT_NEG: return -a;                                                                   \
        case ELT_EXP: return F(exp)(a);                                                            \
        case ELT_LOG: return F(log)(a);                                                            \
        case ELT_SQRT: return F(sqrt)(a);                                                          \
        case ELT_RECIPROCAL: return 1 / a;                                                         \
        case ELT_FLOOR: return F(floor)(a);                                                        \
        case ELT_CEIL: return F(ceil)(a);                                                          \
        case ELT_ERF: return F(erf)(a);                                                            \
        case ELT_SOFTPLUS: return fn##_softplus(a);                                                \
        case ELT_SOFTSIGN: return a / (1 + F(fabs)(a));                                            \
        case ELT_ELU: return a < 0 ? al * F(expm1)(a) : a;                                         \
        case ELT_SELU: return ga * (a > 0 ? a : al * F(expm1)(a));                                 \
        case ELT_CELU: return a > 0 ? a : al * F(expm1)(a / al);                                   \
        case ELT_LEAKY_RELU: return a < 0 ? al * a : a;                                            \
        case ELT_HARD_SIGMOID: return fn##_hard_sigmoid(a, al, be);                                \
        case ELT_HARD_SWISH: return a * F(fmax)(0, F(fmin)(1, a / 6 + (C)0.5));                    \
        case ELT_GELU: return (C)0.5 * a * (1 + F(erf)(a * (C)0.7071067811865476));                \
        case ELT_GELU_TANH:                                                                        \
            return (C)0.5 * a *                                                                    \
                   (1 + F(tanh)((C)0.7978845608028654 * (a + (C)0.044715 * a * a * a)));           \
        case ELT_TANH: return F(tanh)(a);                                                          \
        case ELT_MISH: return a * F(tanh)(fn##_softplus(a));                                       \
        case ELT_CLIP: /* then max wins when min > max, like numpy */                              \
            a = a < al ? al : a;                                                                   \
            return a > be ? be : a;                                                                \
        case ELT_POW: return b == 2 ? a * a : F(pow)(a, b); /* LayerNorm's square, as exported */  \
        case ELT_MIN: return a != a || a < b ? a : b;                                              \
        case ELT_MAX: return a != a || a > b ? a : b;                                              \
        case ELT_PRELU: return a < 0 ? a * b : a;                                                  \
        case ELT_SILU: return a * fn##_sigmoid(al * a);                                            \
        case ELT_X_HARD_SIGMOID: return a * fn##_hard_sigmoid(a, al, be);                          \
        case ELT_ROUND: return F(nearbyint)(a); /* default mode: half to even */                   \
        case ELT_SIGN: return a > 0 ? 1 : a < 0 ? -1 : a;                                          \
        case ELT_SIN: return F(sin)(a);                                                            \
        case ELT_COS: return F(cos)(a);                                                            \
        case ELT_TAN: return F(tan)(a);                                                            \
        case ELT_ASIN: return F(asin)(a);                                                          \
        case ELT_ACOS: return F(acos)(a);                                                          \
        case ELT_ATAN: return F(atan)(a);                                                          \
        case ELT_SINH: return F(sinh)(a);                                                          \
        case ELT_COSH: return F(cosh)(a);                                                          \
        case ELT_ASINH: return F(asinh)(a);                                                        \
        case ELT_ACOSH: return F(acosh)(a);                                                        \
        case ELT_ATANH: return F(atanh)(a);                                                        \
        case ELT_THRESHOLDED_RELU: return a > al ? a : 0;                                          \
        case ELT_SHRINK: return a < -al ? a + be : a > al ? a - be : 0;                            \
        case ELT_SWISH: return a / (1 + F(exp)(-al * a));                                          \
        case ELT_MOD: return F(fmod)(a, b);                                                        \
        default: return a;                                                                         \
        }                                                                                          \
    }

#define ELT_F32(name) name##f
#define ELT_F64(name) name
ELT_DEFINE_FORMULA(eltwise_formula_f32, float, ELT_F32)
ELT_DEFINE_FORMULA(eltwise_formula_f64, double, ELT_F64)
