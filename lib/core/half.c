#include "core/half.h"

#include <string.h>

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float vkml_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f) /* inf or NaN: keep the payload */
        return bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        /* zero or subnormal: mant * 2^-24, exact in float */
        float v = (float)mant * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t vkml_float_to_half(float f)
{
    uint32_t u = float_bits(f), sign = (u >> 16) & 0x8000u, abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf, or NaN made quiet */
        return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0));
    if (abs >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x38800000u) {
        /* below the smallest normal half (2^-14): a subnormal (or zero), rounded once by
         * the float addition (2^-24 units land in the low mantissa bits). */
        float v = bits_float(abs) + 0.5f;
        return (uint16_t)(sign | (float_bits(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd; /* rebias exponent (-112 << 23) and round to even */
    return (uint16_t)(sign | (abs >> 13));
}

float vkml_bfloat16_to_float(uint16_t b)
{
    return bits_float((uint32_t)b << 16);
}

uint16_t vkml_float_to_bfloat16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
