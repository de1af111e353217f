/* The elementwise ops on blocks of wide values, one function per computation class
 * (eltwise_cpu.h). Floats follow C's libm; integers wrap instead of overflowing, and
 * division or Mod by zero gives 0 (ONNX leaves it undefined; no trap). */
#include "cpu/eltwise_cpu.h"

#include <math.h>

/* The integer ops are written once for signed and unsigned types: `x < 0` is meant to be
 * always false for the unsigned class. */
#pragma GCC diagnostic ignored "-Wtype-limits"

#define LOOP(EXPR)                                                                                 \
    for (int j = 0; j < n; j++) {                                                                  \
        C a = x0[j], b = x1 ? x1[j] : 0;                                                           \
        (void)b;                                                                                   \
        y[j] = (C)(EXPR);                                                                          \
    }

/* Ops every class shares (comparisons, min/max, copies, Clip and Where). */
#define COMMON_CASES                                                                               \
    case ELT_EQUAL: LOOP(a == b) break;                                                            \
    case ELT_LESS: LOOP(a < b) break;                                                              \
    case ELT_LESS_EQUAL: LOOP(a <= b) break;                                                       \
    case ELT_GREATER: LOOP(a > b) break;                                                           \
    case ELT_GREATER_EQUAL: LOOP(a >= b) break;                                                    \
    case ELT_AND: LOOP(a != 0 && b != 0) break;                                                    \
    case ELT_OR: LOOP(a != 0 || b != 0) break;                                                     \
    case ELT_XOR: LOOP((a != 0) != (b != 0)) break;                                                \
    case ELT_NOT: LOOP(a == 0) break;                                                              \
    case ELT_MIN: LOOP(a != a || a < b ? a : b) break;                                             \
    case ELT_MAX: LOOP(a != a || a > b ? a : b) break;                                             \
    case ELT_CLIP: {                                                                               \
        const C *lo = s->n_inputs > 1 ? (const C *)xs[1] : NULL;                                   \
        const C *hi = s->n_inputs > 2 ? (const C *)xs[2] : NULL;                                   \
        for (int j = 0; j < n; j++) {                                                              \
            C v = x0[j], l = lo ? lo[j] : CLIP_LO, h = hi ? hi[j] : CLIP_HI;                       \
            v = v < l ? l : v; /* then max wins when min > max, like numpy */                      \
            y[j] = v > h ? h : v;                                                                  \
        }                                                                                          \
        break;                                                                                     \
    }                                                                                              \
    case ELT_WHERE: {                                                                              \
        const C *t = (const C *)xs[1], *f = (const C *)xs[2];                                      \
        for (int j = 0; j < n; j++)                                                                \
            y[j] = x0[j] != 0 ? t[j] : f[j];                                                       \
        break;                                                                                     \
    }                                                                                              \
    default: LOOP(a) break;

/* Float classes: C is float or double, F(name) the libm function of that type. */
#define DEFINE_FLOAT_CLASS(fn, C_, F)                                                              \
    static void fn(const elt_step *s, void *const *xs, void *vy, int n)                            \
    {                                                                                              \
        typedef C_ C;                                                                              \
        const C *x0 = xs[0], *x1 = s->n_inputs > 1 ? (const C *)xs[1] : NULL;                      \
        C *y = vy, al = (C)s->p->alpha, be = (C)s->p->beta, ga = (C)s->p->gamma;                   \
        (void)al, (void)be, (void)ga;                                                              \
        switch (s->op) {                                                                           \
        case ELT_ABS: LOOP(F(fabs)(a)) break;                                                      \
        case ELT_NEG: LOOP(-a) break;                                                              \
        case ELT_EXP: LOOP(F(exp)(a)) break;                                                       \
        case ELT_LOG: LOOP(F(log)(a)) break;                                                       \
        case ELT_SQRT: LOOP(F(sqrt)(a)) break;                                                     \
        case ELT_RECIPROCAL: LOOP(1 / a) break;                                                    \
        case ELT_FLOOR: LOOP(F(floor)(a)) break;                                                   \
        case ELT_CEIL: LOOP(F(ceil)(a)) break;                                                     \
        case ELT_ROUND: LOOP(F(nearbyint)(a)) break; /* default mode: half to even */             \
        case ELT_SIGN: LOOP(a > 0 ? 1 : a < 0 ? -1 : a) break;                                     \
        case ELT_ERF: LOOP(F(erf)(a)) break;                                                       \
        case ELT_SIN: LOOP(F(sin)(a)) break;                                                       \
        case ELT_COS: LOOP(F(cos)(a)) break;                                                       \
        case ELT_TAN: LOOP(F(tan)(a)) break;                                                       \
        case ELT_ASIN: LOOP(F(asin)(a)) break;                                                     \
        case ELT_ACOS: LOOP(F(acos)(a)) break;                                                     \
        case ELT_ATAN: LOOP(F(atan)(a)) break;                                                     \
        case ELT_SINH: LOOP(F(sinh)(a)) break;                                                     \
        case ELT_COSH: LOOP(F(cosh)(a)) break;                                                     \
        case ELT_ASINH: LOOP(F(asinh)(a)) break;                                                   \
        case ELT_ACOSH: LOOP(F(acosh)(a)) break;                                                   \
        case ELT_ATANH: LOOP(F(atanh)(a)) break;                                                   \
        case ELT_SOFTPLUS: LOOP(a > 0 ? a + F(log1p)(F(exp)(-a)) : F(log1p)(F(exp)(a))) break;     \
        case ELT_SOFTSIGN: LOOP(a / (1 + F(fabs)(a))) break;                                       \
        case ELT_MISH:                                                                             \
            LOOP(a * F(tanh)(a > 0 ? a + F(log1p)(F(exp)(-a)) : F(log1p)(F(exp)(a)))) break;       \
        case ELT_ELU: LOOP(a < 0 ? al * F(expm1)(a) : a) break;                                    \
        case ELT_SELU: LOOP(ga * (a > 0 ? a : al * F(expm1)(a))) break;                            \
        case ELT_CELU: LOOP(a > 0 ? a : al * F(expm1)(a / al)) break;                              \
        case ELT_LEAKY_RELU: LOOP(a < 0 ? al * a : a) break;                                       \
        case ELT_THRESHOLDED_RELU: LOOP(a > al ? a : 0) break;                                     \
        case ELT_HARD_SIGMOID: LOOP(F(fmax)(0, F(fmin)(1, al * a + be))) break;                    \
        case ELT_HARD_SWISH: LOOP(a * F(fmax)(0, F(fmin)(1, a / 6 + (C)0.5))) break;               \
        case ELT_GELU:                                                                             \
            if (s->p->gelu_tanh)                                                                   \
                LOOP((C)0.5 * a *                                                                  \
                     (1 + F(tanh)((C)0.7978845608028654 * (a + (C)0.044715 * a * a * a))))        \
            else                                                                                   \
                LOOP((C)0.5 * a * (1 + F(erf)(a * (C)0.7071067811865476)))                         \
            break;                                                                                 \
        case ELT_RELU: LOOP(a < 0 ? 0 : a) break;                                                  \
        case ELT_SHRINK: LOOP(a < -al ? a + be : a > al ? a - be : 0) break;                      \
        case ELT_SWISH: LOOP(a / (1 + F(exp)(-al * a))) break;                                    \
        case ELT_SIGMOID: LOOP(a >= 0 ? 1 / (1 + F(exp)(-a)) : F(exp)(a) / (1 + F(exp)(a))) break; \
        case ELT_TANH: LOOP(F(tanh)(a)) break;                                                     \
        case ELT_IS_NAN: LOOP(a != a) break;                                                       \
        case ELT_IS_INF:                                                                           \
            LOOP(F(fabs)(a) == (C)INFINITY && (a > 0 ? s->p->detect_pos : s->p->detect_neg))       \
            break;                                                                                 \
        case ELT_ADD:                                                                              \
        case ELT_SUM: LOOP(a + b) break;                                                           \
        case ELT_SUB: LOOP(a - b) break;                                                           \
        case ELT_MUL: LOOP(a * b) break;                                                           \
        case ELT_DIV: LOOP(a / b) break;                                                           \
        case ELT_MOD: LOOP(F(fmod)(a, b)) break;                                                   \
        case ELT_POW: LOOP(F(pow)(a, b)) break;                                                    \
        case ELT_PRELU: LOOP(a < 0 ? a * b : a) break;                                             \
        case ELT_MEAN: LOOP(a / (C)s->count) break;                                                \
            COMMON_CASES                                                                           \
        }                                                                                          \
    }

/* Clip's bounds when absent: the attributes before opset 11 (infinite by default). */
#define CLIP_LO ((C)s->p->alpha)
#define CLIP_HI ((C)s->p->beta)
#define F32(name) name##f
#define F64(name) name
DEFINE_FLOAT_CLASS(compute_f32, float, F32)
DEFINE_FLOAT_CLASS(compute_f64, double, F64)
#undef CLIP_LO
#undef CLIP_HI
/* Integers: the class's range (no bound). */
#define CLIP_LO ((C)-1 < 0 ? (C)INT64_MIN : (C)0)
#define CLIP_HI ((C)-1 < 0 ? (C)INT64_MAX : (C)UINT64_MAX)

/* b^e by squaring (at most 64 steps); negative e truncates 1/b^|e| toward zero. */
#define DEFINE_IPOW(fn, C, UC)                                                                     \
    static C fn(C b, C e)                                                                          \
    {                                                                                              \
        if ((C)-1 < 0 && e < 0)                                                                    \
            return b == 1 ? 1 : b == (C)-1 ? ((e & 1) ? b : 1) : 0;                                 \
        UC r = 1, base = (UC)b;                                                                    \
        for (UC k = (UC)e; k; k >>= 1, base *= base)                                               \
            if (k & 1)                                                                             \
                r *= base;                                                                         \
        return (C)r;                                                                               \
    }
DEFINE_IPOW(ipow_s64, int64_t, uint64_t)
DEFINE_IPOW(ipow_u64, uint64_t, uint64_t)

/* Python's % (sign of the divisor) or C's fmod (sign of the dividend); 0 for x % 0 and,
 * signed, x % -1 (MIN % -1 traps in C). */
#define IMOD(a, b, fmod)                                                                           \
    ((b) == 0 || ((C)-1 < 0 && (b) == (C)-1)                                                       \
         ? 0                                                                                       \
         : (fmod) || (a) % (b) == 0 || (((a) % (b) < 0) == ((b) < 0)) ? (a) % (b)                 \
                                                                      : (a) % (b) + (b))
/* Truncating division; x / 0 gives 0 and MIN / -1 wraps. */
#define IDIV(a, b) ((b) == 0 ? 0 : ((C)-1 < 0 && (b) == (C)-1) ? (C)(0 - (UC)(a)) : (a) / (b))

#define DEFINE_INT_CLASS(fn, C_, UC_, IPOW)                                                        \
    static void fn(const elt_step *s, void *const *xs, void *vy, int n)                            \
    {                                                                                              \
        typedef C_ C;                                                                              \
        typedef UC_ UC;                                                                            \
        const C *x0 = xs[0], *x1 = s->n_inputs > 1 ? (const C *)xs[1] : NULL;                      \
        C *y = vy;                                                                                 \
        switch (s->op) {                                                                           \
        case ELT_ABS: LOOP(a < 0 ? (C)(0 - (UC)a) : a) break;                                      \
        case ELT_NEG: LOOP((C)(0 - (UC)a)) break;                                                  \
        case ELT_SIGN: LOOP(a > 0 ? 1 : a < 0 ? (C)-1 : 0) break;                                   \
        case ELT_RELU: LOOP(a < 0 ? 0 : a) break;                                                  \
        case ELT_BITWISE_NOT: LOOP(~a) break;                                                      \
        case ELT_ADD:                                                                              \
        case ELT_SUM: LOOP((UC)a + (UC)b) break;                                                   \
        case ELT_SUB: LOOP((UC)a - (UC)b) break;                                                   \
        case ELT_MUL: LOOP((UC)a * (UC)b) break;                                                   \
        case ELT_DIV: LOOP(IDIV(a, b)) break;                                                      \
        case ELT_MOD: LOOP(IMOD(a, b, s->p->fmod)) break;                                          \
        case ELT_POW: LOOP(IPOW(a, b)) break;                                                      \
        case ELT_PRELU: LOOP(a < 0 ? (UC)a * (UC)b : (UC)a) break;                                 \
        case ELT_BIT_SHIFT:                                                                        \
            if (s->p->shift_left)                                                                  \
                LOOP((UC)b >= 64 ? 0 : (UC)a << b)                                                 \
            else                                                                                   \
                LOOP((UC)b >= 64 ? 0 : (UC)a >> b)                                                 \
            break;                                                                                 \
        case ELT_BITWISE_AND: LOOP(a & b) break;                                                   \
        case ELT_BITWISE_OR: LOOP(a | b) break;                                                    \
        case ELT_BITWISE_XOR: LOOP(a ^ b) break;                                                   \
        case ELT_MEAN: LOOP(a / (C)s->count) break;                                                \
            COMMON_CASES                                                                           \
        }                                                                                          \
    }

DEFINE_INT_CLASS(compute_s64, int64_t, uint64_t, ipow_s64)
DEFINE_INT_CLASS(compute_u64, uint64_t, uint64_t, ipow_u64)

void elt_compute(elt_class cls, const elt_step *s, void *const *x, void *y, int n)
{
    switch (cls) {
    case ELT_CLASS_F32: compute_f32(s, x, y, n); break;
    case ELT_CLASS_F64: compute_f64(s, x, y, n); break;
    case ELT_CLASS_S64: compute_s64(s, x, y, n); break;
    case ELT_CLASS_U64: compute_u64(s, x, y, n); break;
    }
}
