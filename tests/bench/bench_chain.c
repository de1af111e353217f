/* Benchmark (not a test): K dependent Adds (y = y + c over 1024 floats) as one model, for
 * K = 1 .. 3000, on one device: the median host-to-host latency per K and the slope of a
 * least-squares line through them (the cost of one more dependent op), then runs/s of the
 * K = 100 chain with 1, 2, 4 and 8 runs in flight.
 *   bench_chain [DEVICE] [RUNS]      DEVICE: cpu, 0, 1 ... (default 0); RUNS: per K (200)
 * The raw floor to compare with (the same chain as bare dispatches with barriers) is in
 * ../shared/device/README.md: 2.03 us per dispatch on an H200. */
#include "bench_util.h"

#define LEN 1024

int main(int argc, char **argv)
{
    const char *dev_text = argc > 1 ? argv[1] : "0";
    int runs = argc > 2 ? atoi(argv[2]) : 200;
    if (runs < 10)
        runs = 10;
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    int device;
    if (vkml_context_create(NULL, &ctx, &err) != VKML_OK ||
        vkml_context_parse_device(ctx, dev_text, &device, &err) != VKML_OK) {
        fprintf(stderr, "bench_chain: %s\n", err.message);
        return 1;
    }
    vkml_device_info info;
    vkml_context_device_info(ctx, device, &info, &err);
    printf("device %s (%s), %d runs per K, chains of Add over %d floats\n", dev_text, info.name,
           runs, LEN);
    static const int ks[] = {1, 10, 100, 300, 1000, 3000};
    const int n_k = (int)(sizeof(ks) / sizeof(ks[0]));
    double med[6], kx[6];
    float in[LEN] = {0};
    vkml_tensor ti = {.dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {LEN}, .data = in,
                      .size = sizeof(in)};
    printf("%8s %14s\n", "K", "median us");
    for (int i = 0; i < n_k; i++) {
        kx[i] = ks[i];
        if ((med[i] = bench_chain_latency(ctx, device, ks[i], LEN, runs, 0)) < 0)
            return 1;
        printf("%8d %14.1f\n", ks[i], med[i]);
    }
    double slope, intercept;
    bench_fit(kx, med, n_k, &slope, &intercept);
    printf("per dependent op: %.3f us (least squares over K); fixed cost %.1f us\n", slope,
           intercept);
    vkml_model *model = bench_chain_model(100, LEN);
    for (int k = 1; k <= 8; k *= 2) {
        vkml_session *s = NULL;
        vkml_session_params p = {.device = device, .runs_in_flight = k};
        vkml_run *inflight[8] = {0};
        float outs[8][LEN];
        vkml_tensor o[8];
        if (vkml_session_create(ctx, model, &p, &s, &err) != VKML_OK)
            return 1;
        for (int j = 0; j < k; j++)
            o[j] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {LEN},
                                 .data = outs[j], .size = sizeof(outs[j])};
        double t0 = bench_now_us();
        for (int r = 0; r < runs * 4; r++) {
            if (inflight[r % k])
                vkml_run_wait(&inflight[r % k], &err);
            vkml_session_submit(s, &ti, 1, &o[r % k], 1, NULL, NULL, &inflight[r % k], &err);
        }
        for (int j = 0; j < k; j++)
            if (inflight[j])
                vkml_run_wait(&inflight[j], &err);
        double us = bench_now_us() - t0;
        printf("K 100, %d in flight: %.0f runs/s\n", k, runs * 4 / us * 1e6);
        vkml_session_destroy(&s);
    }
    vkml_model_destroy(&model);
    vkml_context_destroy(&ctx);
    return 0;
}
