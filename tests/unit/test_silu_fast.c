/* SiLU in place (cpu/silu_fast.h), the CPU device's library convolutions' SiLU epilogue:
 * every path this CPU runs (plain, AVX2, AVX-512) against x * sigmoid(alpha x) in double,
 * within (1.2e-6 + 1.2e-7 |alpha x|) relative while sigmoid(alpha x) >= 2^-126 and within |x|
 * 2^-126 below; every path's bits equal to the plain path's; NaN stays NaN, infinities keep their
 * sign; runs of every length 0..40 at odd offsets (the vector loops' tails). */
#include "cpu/silu_fast.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

#define N 4099

static void check_path(int path, const float *x, const float *plain, size_t n, float alpha)
{
    static float y[N];
    memcpy(y, x, n * sizeof(float));
    cpu_silu_inplace_on(path, y, n, alpha);
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; i++) {
        double exact = (double)x[i] / (1.0 + exp(-(double)alpha * x[i]));
        bool ok;
        if (isnan(x[i]))
            ok = isnan(y[i]);
        else if (isinf(x[i]))
            ok = y[i] == x[i];
        else if (-(double)alpha * x[i] > 126 * M_LN2) /* sigmoid below 2^-126 */
            ok = fabs(y[i]) <= fabs(x[i]) * ldexp(1.0, -126);
        else
            ok = fabs(y[i] - exact) <= (1.2e-6 + 1.2e-7 * fabs(alpha * x[i])) * fabs(exact);
        if (plain && !isnan(x[i]))
            ok = ok && memcmp(&y[i], &plain[i], sizeof(float)) == 0;
        if (!ok) {
            bad++;
            CHECK(false, "path %d alpha %g: silu(%.9g) = %.9g, exact %.9g, plain path %.9g", path,
                  alpha, x[i], y[i], exact, plain ? plain[i] : 0.0f);
        }
    }
}

int main(void)
{
    static float x[N], plain[N];
    uint64_t seed = 7;
    size_t n = 0;
    const float specials[] = {0.0f,   -0.0f,  1e-30f,  -1e-30f, 1e-40f, 87.0f,    -87.0f,    88.0f,
                              -88.0f, 200.0f, -200.0f, 3e38f,   -3e38f, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
        x[n++] = specials[i];
    while (n < 2048) /* a dense sweep of where sigmoid bends */
        x[n] = -20.0f + 40.0f * (float)n / 2048.0f, n++;
    while (n < N)
        x[n++] = test_randf(&seed, -120.0f, 120.0f);
    int paths = cpu_silu_paths();
    CHECK(paths >= 1 && paths <= 3, "cpu_silu_paths() = %d", paths);
    printf("silu paths on this CPU: %d\n", paths);
    const float alphas[] = {1.0f, 1.702f, 0.5f};
    for (size_t a = 0; a < sizeof(alphas) / sizeof(alphas[0]); a++) {
        memcpy(plain, x, sizeof(x));
        cpu_silu_inplace_on(0, plain, N, alphas[a]);
        for (int p = 0; p < paths; p++)
            check_path(p, x, p ? plain : NULL, N, alphas[a]);
    }
    /* tails: every length up to 40 from odd offsets, on the path the CPU takes */
    for (size_t len = 0; len <= 40; len++) {
        static float y[64];
        memcpy(y, x + 2048 + 3 + len, len * sizeof(float));
        y[len] = 12345.0f; /* past the run: untouched */
        cpu_silu_inplace(y, len, 1.0f);
        for (size_t i = 0; i < len; i++) {
            float want = x[2048 + 3 + len + i];
            cpu_silu_inplace_on(0, &want, 1, 1.0f);
            CHECK(memcmp(&y[i], &want, sizeof(float)) == 0,
                  "run of %zu: element %zu %.9g, want %.9g", len, i, y[i], want);
        }
        CHECK(y[len] == 12345.0f, "run of %zu: wrote past its end", len);
    }
    return test_finish("silu_fast");
}
