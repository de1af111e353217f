/* SiLU in place (silu_fast.h): sigmoid(a) = 1 / (1 + 2^t) with t = -a log2(e) clamped to
 * [-126, 126], 2^t = 2^round(t) times a degree-6 polynomial of the remainder in [-0.5,
 * 0.5] (Horner, fused multiply-adds), then x / (1 + 2^t). One division a value: as a
 * reciprocal estimate and a Newton step it ran no faster (AMD EPYC, AVX-512, 1.2M values
 * 0.20 ms either way). */
#include "cpu/silu_fast.h"

#include <math.h>
#include <stdatomic.h>

#define LOG2E 1.44269504f
#define CLAMP 126.0f
/* 2^f on [-0.5, 0.5], highest power first */
static const float poly[7] = {1.535336188319500e-4f,
                              1.339887440266574e-3f,
                              9.618437357674640e-3f,
                              5.550332471162809e-2f,
                              2.402264791363012e-1f,
                              6.931472028550421e-1f,
                              1.0f};

static float silu_one(float x, float k)
{
    float t = x * k;
    t = fminf(fmaxf(t, -CLAMP), CLAMP); /* NaN becomes -126: x carries it through */
    float r = nearbyintf(t), f = t - r, p = poly[0];
    for (int i = 1; i < 7; i++)
        p = fmaf(p, f, poly[i]);
    return x / (1.0f + ldexpf(p, (int)r));
}

static void silu_plain(float *x, size_t n, float k, size_t from)
{
    for (size_t i = from; i < n; i++)
        x[i] = silu_one(x[i], k);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86_PATHS 1

/* One vector loop for both widths W (512, 256): the operations of silu_one, 2^r from its
 * exponent bits (r is a whole number in [-126, 126]). ROUND rounds to nearest. */
#define SILU_VECTORS(W, ROUND)                                                                     \
    const __m##W kv = _mm##W##_set1_ps(k), lo = _mm##W##_set1_ps(-CLAMP),                          \
                 hi = _mm##W##_set1_ps(CLAMP), one = _mm##W##_set1_ps(1.0f);                       \
    const size_t lanes = W / 32;                                                                   \
    size_t i = 0;                                                                                  \
    for (; i + lanes <= n; i += lanes) {                                                           \
        __m##W v = _mm##W##_loadu_ps(x + i);                                                       \
        /* max(t, lo) gives lo for a NaN t, as fmaxf does */                                       \
        __m##W t = _mm##W##_min_ps(_mm##W##_max_ps(_mm##W##_mul_ps(v, kv), lo), hi);               \
        __m##W r = ROUND(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);                        \
        __m##W f = _mm##W##_sub_ps(t, r), p = _mm##W##_set1_ps(poly[0]);                           \
        for (int j = 1; j < 7; j++)                                                                \
            p = _mm##W##_fmadd_ps(p, f, _mm##W##_set1_ps(poly[j]));                                \
        __m##W##i bits = _mm##W##_slli_epi32(                                                      \
            _mm##W##_add_epi32(_mm##W##_cvtps_epi32(r), _mm##W##_set1_epi32(127)), 23);            \
        __m##W e = _mm##W##_mul_ps(p, _mm##W##_castsi##W##_ps(bits));                              \
        _mm##W##_storeu_ps(x + i, _mm##W##_div_ps(v, _mm##W##_add_ps(one, e)));                    \
    }                                                                                              \
    silu_plain(x, n, k, i);

__attribute__((target("avx512f"))) static void silu_avx512(float *x, size_t n, float k)
{
    SILU_VECTORS(512, _mm512_roundscale_ps)
}

__attribute__((target("avx2,fma"))) static void silu_avx2(float *x, size_t n, float k)
{
    SILU_VECTORS(256, _mm256_round_ps)
}
#endif

int cpu_silu_paths(void)
{
#ifdef HAVE_X86_PATHS
    if (__builtin_cpu_supports("avx512f"))
        return 3;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return 2;
#endif
    return 1;
}

void cpu_silu_inplace_on(int path, float *x, size_t n, float alpha)
{
    float k = -alpha * LOG2E;
    switch (path) {
#ifdef HAVE_X86_PATHS
    case 2: silu_avx512(x, n, k); return;
    case 1: silu_avx2(x, n, k); return;
#endif
    default: silu_plain(x, n, k, 0); return;
    }
}

void cpu_silu_inplace(float *x, size_t n, float alpha)
{
    static _Atomic int paths; /* relaxed: every thread computes the same */
    int p = atomic_load_explicit(&paths, memory_order_relaxed);
    if (!p)
        atomic_store_explicit(&paths, p = cpu_silu_paths(), memory_order_relaxed);
    cpu_silu_inplace_on(p - 1, x, n, alpha);
}
