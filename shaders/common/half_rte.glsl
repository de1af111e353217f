// half_rte(v): v rounded to the nearest float16 value, ties to even, returned as float.
// Converting with float16_t(v) rounds as the implementation likes (SPIR-V leaves the
// rounding of narrowing conversions to it; the H200 differs from the CPU there), which
// matters where the half value is rounded again (QuantizeLinear with float16 scales).
#ifndef VKML_HALF_RTE_GLSL
#define VKML_HALF_RTE_GLSL

float half_rte(float v)
{
    uint u = floatBitsToUint(v), a = u & 0x7fffffffu, sign = u & 0x80000000u;
    if (a >= 0x7f800000u) // infinity or NaN
        return v;
    if (a >= 0x477ff000u) // 65520 and above round to infinity
        return uintBitsToFloat(sign | 0x7f800000u);
    if (a < 0x38800000u) { // below the smallest normal half: multiples of 2^-24
        float r = roundEven(uintBitsToFloat(a) * 16777216.0) / 16777216.0;
        return sign != 0u ? -r : r;
    }
    // A normal half keeps 10 of float's 23 mantissa bits: round the 13 dropped bits.
    a = (a + 0xfffu + ((a >> 13) & 1u)) & ~0x1fffu;
    return uintBitsToFloat(sign | a);
}

#endif
