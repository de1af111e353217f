/* IEEE half precision (float16) <-> float32, round to nearest even, with infinities,
 * NaNs and subnormals; bfloat16 likewise. Used wherever the host reads or writes float16
 * tensors (CPU kernels, tests). */
#include "core/common.h"

#include <stdatomic.h>
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

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_F16C_PATH 1

/* 8 elements an instruction, rounding to nearest even as vkml_half_from_float (NaNs quiet,
 * payloads truncated, the same bits). */
__attribute__((target("avx,f16c"))) static void halves_from_floats_f16c(uint16_t *dst,
                                                                        const float *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++)
        dst[i] = vkml_half_from_float(src[i]);
}

__attribute__((target("avx,f16c"))) static void
floats_from_halves_f16c(float *dst, const uint16_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(
            dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
    for (; i < n; i++)
        dst[i] = vkml_half_to_float(src[i]);
}

static bool have_f16c(void)
{
    /* relaxed: every thread that finds it unknown computes the same answer, and nothing
     * else is published with it */
    static _Atomic int known = -1;
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k < 0) {
        /* CPUID 1: ECX bit 29 F16C, 28 AVX, 27 OSXSAVE; then XCR0 must enable the SSE and
         * AVX state (clang's __builtin_cpu_supports does not know "f16c") */
        unsigned a, b, c, d;
        k = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & (7u << 27)) == (7u << 27)) {
            unsigned lo, hi;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            k = (lo & 6u) == 6u;
        }
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 1;
}
#endif

void vkml_halves_from_floats(uint16_t *dst, const float *src, size_t n)
{
#ifdef HAVE_F16C_PATH
    if (have_f16c()) {
        halves_from_floats_f16c(dst, src, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        dst[i] = vkml_half_from_float(src[i]);
}

void vkml_floats_from_halves(float *dst, const uint16_t *src, size_t n)
{
#ifdef HAVE_F16C_PATH
    if (have_f16c()) {
        floats_from_halves_f16c(dst, src, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        dst[i] = vkml_half_to_float(src[i]);
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
