/* IEEE half precision (float16) <-> float32, round to nearest even, with infinities,
 * NaNs and subnormals; bfloat16 likewise. Used wherever the host reads or writes float16
 * tensors (CPU kernels, tests). */
#include "core/common.h"

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
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) /* inf or NaN (payload kept, quiet) */
        return bits_float(sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0));
    if (exp == 0) { /* zero or subnormal: man * 2^-24 */
        float f = (float)man * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t vkml_half_from_float(float f)
{
    uint32_t u = float_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) /* NaN: keep it quiet */
        return (uint16_t)(sign | 0x7e00 | ((abs >> 13) & 0x3ff));
    if (abs >= 0x477ff000u) /* rounds to or past 65520: infinity */
        return (uint16_t)(sign | 0x7c00);
    if (abs < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        /* value * 2^24 rounded to nearest even, by float arithmetic (exact here). */
        float scaled = bits_float(abs) * 16777216.0f;
        uint32_t m = (uint32_t)scaled;
        float rest = scaled - (float)m;
        if (rest > 0.5f || (rest == 0.5f && (m & 1)))
            m++;
        return (uint16_t)(sign | m);
    }
    /* Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even. */
    uint32_t h = ((abs >> 13) - (112u << 10));
    uint32_t dropped = abs & 0x1fff;
    if (dropped > 0x1000 || (dropped == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

float vkml_bfloat16_to_float(uint16_t b)
{
    return bits_float((uint32_t)b << 16);
}

uint16_t vkml_bfloat16_from_float(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
