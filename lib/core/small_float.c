/* The small element types of ONNX <-> C values: float8 (e4m3fn, e4m3fnuz, e5m2,
 * e5m2fnuz, e8m0), float4e2m1, and the packed integers int4/uint4/int2/uint2.
 *
 * One description per float format (exponent and mantissa widths, bias, how it spells
 * NaN and infinity) drives one decoder and one encoder, which round to nearest even and
 * follow Cast's saturate attribute: saturating, a value beyond the largest finite one
 * (infinity included) becomes that largest finite value; otherwise it becomes infinity
 * where the format has one and NaN where it has not. */
#include "core/common.h"

#include <math.h>
#include <string.h>

typedef enum small_special {
    SMALL_IEEE,   /* all-ones exponent: infinity (mantissa 0) or NaN (e5m2) */
    SMALL_FN,     /* finite only; all ones (exponent and mantissa) is NaN (e4m3fn) */
    SMALL_FNUZ,   /* finite only, no negative zero; 0x80 is NaN (the fnuz types) */
    SMALL_FINITE, /* no NaN, no infinity (float4e2m1) */
    SMALL_E8M0,   /* unsigned power of two, 0xFF is NaN */
} small_special;

typedef struct small_format {
    int exp_bits, man_bits, bias;
    small_special special;
} small_format;

static const small_format *format_of(vkml_dtype dtype)
{
    static const small_format e4m3fn = {4, 3, 7, SMALL_FN}, e4m3fnuz = {4, 3, 8, SMALL_FNUZ},
                              e5m2 = {5, 2, 15, SMALL_IEEE}, e5m2fnuz = {5, 2, 16, SMALL_FNUZ},
                              e2m1 = {2, 1, 1, SMALL_FINITE}, e8m0 = {8, 0, 127, SMALL_E8M0};
    switch (dtype) {
    case VKML_DTYPE_FLOAT8E4M3FN: return &e4m3fn;
    case VKML_DTYPE_FLOAT8E4M3FNUZ: return &e4m3fnuz;
    case VKML_DTYPE_FLOAT8E5M2: return &e5m2;
    case VKML_DTYPE_FLOAT8E5M2FNUZ: return &e5m2fnuz;
    case VKML_DTYPE_FLOAT4E2M1: return &e2m1;
    case VKML_DTYPE_FLOAT8E8M0: return &e8m0;
    default: return NULL;
    }
}

bool vkml_dtype_is_small_float(vkml_dtype dtype)
{
    return format_of(dtype) != NULL;
}

static unsigned sign_bit(const small_format *f)
{
    return f->special == SMALL_E8M0 ? 0 : 1u << (f->exp_bits + f->man_bits);
}

static unsigned nan_bits(const small_format *f, bool negative)
{
    unsigned s = negative ? sign_bit(f) : 0, mag = sign_bit(f) - 1;
    switch (f->special) {
    case SMALL_IEEE: return s | mag;
    case SMALL_FN: return s | mag;
    case SMALL_FNUZ: return sign_bit(f);
    case SMALL_E8M0: return 0xFF;
    default: return sign_bit(f); /* float4e2m1 has no NaN: negative zero, as ONNX */
    }
}

/* Largest finite magnitude's bit pattern. */
static unsigned max_bits(const small_format *f)
{
    unsigned mag = sign_bit(f) - 1;
    switch (f->special) {
    case SMALL_IEEE: return mag - (1u << f->man_bits); /* below the all-ones exponent */
    case SMALL_FN: return mag - 1;
    case SMALL_E8M0: return 0xFE;
    default: return mag;
    }
}

double vkml_small_float_decode(vkml_dtype dtype, unsigned bits)
{
    const small_format *f = format_of(dtype);
    if (!f)
        return 0;
    unsigned sign = bits & sign_bit(f), mag = bits & (sign_bit(f) - 1);
    unsigned e = mag >> f->man_bits, m = mag & ((1u << f->man_bits) - 1);
    unsigned e_max = (1u << f->exp_bits) - 1;
    if (f->special == SMALL_E8M0)
        return bits == 0xFF ? NAN : ldexp(1.0, (int)bits - f->bias);
    if ((f->special == SMALL_FNUZ && bits == sign_bit(f)) ||
        (f->special == SMALL_FN && mag == sign_bit(f) - 1) ||
        (f->special == SMALL_IEEE && e == e_max && m != 0))
        return NAN;
    double v;
    if (f->special == SMALL_IEEE && e == e_max)
        v = INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - f->bias - f->man_bits);
    else
        v = ldexp((double)(m | (1u << f->man_bits)), (int)e - f->bias - f->man_bits);
    return sign ? -v : v;
}

/* Bit pattern of a finite magnitude the format holds exactly. */
static unsigned encode_exact(const small_format *f, double a)
{
    int emin = 1 - f->bias, k;
    if (a < ldexp(1.0, emin)) /* subnormal (or zero) */
        return (unsigned)ldexp(a, f->man_bits - emin);
    frexp(a, &k); /* a = 2^(k-1) * 1.m */
    unsigned m = (unsigned)ldexp(a, f->man_bits - (k - 1)) & ((1u << f->man_bits) - 1);
    return ((unsigned)(k - 1 + f->bias) << f->man_bits) | m;
}

/* e8m0 from a float's exponent and mantissa bits (the sign is dropped), as ONNX does. */
unsigned vkml_e8m0_encode(float x, vkml_e8m0_round mode, bool saturate)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t e = (b >> 23) & 0xFF, m = b & 0x7FFFFF;
    if (e == 0xFF)
        return m || !saturate ? 0xFF : 0xFE;
    bool up = mode == VKML_E8M0_UP        ? m != 0
              : mode == VKML_E8M0_NEAREST ? (m & 0x400000) != 0
                                          : false;
    e += up;
    if (e > 0xFE)
        return saturate ? 0xFE : 0xFF;
    return e;
}

unsigned vkml_small_float_encode(vkml_dtype dtype, double x, bool saturate)
{
    const small_format *f = format_of(dtype);
    if (!f)
        return 0;
    if (f->special == SMALL_E8M0)
        return vkml_e8m0_encode((float)x, VKML_E8M0_UP, saturate);
    bool neg = signbit(x);
    unsigned s = neg ? sign_bit(f) : 0;
    if (isnan(x))
        return nan_bits(f, neg);
    if (f->special == SMALL_FINITE)
        saturate = true; /* float4e2m1 always saturates */
    double a = fabs(x), max = vkml_small_float_decode(dtype, max_bits(f));
    unsigned overflow = saturate                   ? s | max_bits(f)
                        : f->special == SMALL_IEEE ? s | (((1u << f->exp_bits) - 1) << f->man_bits)
                                                   : nan_bits(f, neg);
    if (isinf(a))
        return overflow;
    int k, emin = 1 - f->bias;
    frexp(a, &k);
    int e = k - 1 < emin ? emin : k - 1;
    double q = ldexp(1.0, e - f->man_bits);
    double r = nearbyint(a / q) * q; /* the default rounding mode: to nearest even */
    if (r > max)
        return overflow;
    unsigned bits = encode_exact(f, r);
    if (bits == 0 && f->special == SMALL_FNUZ)
        return 0; /* no negative zero */
    return s | bits;
}

int64_t vkml_small_int_decode(vkml_dtype dtype, unsigned bits)
{
    switch (dtype) {
    case VKML_DTYPE_INT4: return (int64_t)((bits & 0xF) ^ 0x8) - 0x8;
    case VKML_DTYPE_INT2: return (int64_t)((bits & 0x3) ^ 0x2) - 0x2;
    case VKML_DTYPE_UINT4: return bits & 0xF;
    case VKML_DTYPE_UINT2: return bits & 0x3;
    default: return 0;
    }
}

void vkml_small_int_range(vkml_dtype dtype, int64_t *lo, int64_t *hi)
{
    int bits = (int)vkml_dtype_bits(dtype);
    bool is_signed = dtype == VKML_DTYPE_INT4 || dtype == VKML_DTYPE_INT2;
    *lo = is_signed ? -((int64_t)1 << (bits - 1)) : 0;
    *hi = is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
}

unsigned vkml_small_int_encode(vkml_dtype dtype, int64_t v)
{
    return (unsigned)v & ((1u << vkml_dtype_bits(dtype)) - 1); /* wraps, as Cast does */
}

unsigned vkml_packed_get(const void *data, size_t i, unsigned bits)
{
    size_t per = 8 / bits, shift = (i % per) * bits;
    return (((const uint8_t *)data)[i / per] >> shift) & ((1u << bits) - 1);
}

void vkml_packed_set(void *data, size_t i, unsigned bits, unsigned v)
{
    size_t per = 8 / bits, shift = (i % per) * bits;
    uint8_t *p = (uint8_t *)data + i / per, mask = (uint8_t)(((1u << bits) - 1) << shift);
    *p = (uint8_t)((*p & ~mask) | ((v << shift) & mask));
}
