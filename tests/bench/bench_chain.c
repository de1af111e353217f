/* Benchmark (not a test): K dependent Adds (y = y + c over 1024 floats) as one model, for
 * K = 1 .. 3000, on one device: the median host-to-host latency per K and the slope of a
 * least-squares line through them (the cost of one more dependent op), fused (the chain is
 * one FusedElementwise node: one dispatch) and unfused (one dispatch per Add); then runs/s
 * of the K = 100 chain with 1, 2, 4 and 8 runs in flight.
 *   bench_chain [--no-fuse] [DEVICE] [RUNS]   DEVICE: cpu, 0, 1 ... (default 0); RUNS: per
 *                                             K (200); --no-fuse: the unfused figures only
 * The raw floor to compare with (the same chain as bare dispatches with barriers) is
 * measured by bench_floor in the same run. */
#include "bench_util.h"

#define LEN 1024

/* Median latency per K and the least-squares slope (us per op), fused or not. */
static int sweep(vkml_context *ctx, int device, int runs, bool no_fuse, double *slope_out)
{
    static const int ks[] = {1, 10, 100, 300, 1000, 3000};
    const int n_k = (int)(sizeof(ks) / sizeof(ks[0]));
    double med[6], kx[6];
    printf("%s:\n%8s %14s\n", no_fuse ? "unfused (one dispatch per Add)" : "fused (one dispatch)",
           "K", "median us");
    for (int i = 0; i < n_k; i++) {
        kx[i] = ks[i];
        if ((med[i] = bench_chain_latency(ctx, device, ks[i], LEN, runs, 0, no_fuse)) < 0)
            return 1;
        printf("%8d %14.1f\n", ks[i], med[i]);
    }
    double slope, intercept;
    bench_fit(kx, med, n_k, &slope, &intercept);
    printf("per dependent op: %.4f us (least squares over K); fixed cost %.1f us\n", slope,
           intercept);
    *slope_out = slope;
    return 0;
}

/* runs/s of the K = 100 chain with 1, 2, 4 and 8 runs in flight. */
static int in_flight(vkml_context *ctx, int device, int runs, bool no_fuse)
{
    static float in[LEN];
    vkml_tensor ti = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {LEN}, .data = in, .size = sizeof(in)};
    vkml_error err = {0};
    vkml_model *model = bench_chain_model(100, LEN);
    for (int k = 1; k <= 8; k *= 2) {
        vkml_session *s = NULL;
        vkml_session_params p = {.device = device, .runs_in_flight = k, .no_fuse = no_fuse};
        vkml_run *inflight[8] = {0};
        static float outs[8][LEN];
        vkml_tensor o[8];
        if (vkml_session_create(ctx, model, &p, &s, &err) != VKML_OK) {
            vkml_model_destroy(&model);
            return 1;
        }
        for (int j = 0; j < k; j++)
            o[j] = (vkml_tensor){.dtype = VKML_DTYPE_FLOAT,
                                 .rank = 1,
                                 .dims = {LEN},
                                 .data = outs[j],
                                 .size = sizeof(outs[j])};
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
        printf("K 100%s, %d in flight: %.0f runs/s\n", no_fuse ? " unfused" : "", k,
               runs * 4 / us * 1e6);
        vkml_session_destroy(&s);
    }
    vkml_model_destroy(&model);
    return 0;
}

int main(int argc, char **argv)
{
    bool no_fuse = argc > 1 && strcmp(argv[1], "--no-fuse") == 0;
    argc -= no_fuse, argv += no_fuse;
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
    double fused = 0, unfused = 0;
    if ((!no_fuse && sweep(ctx, device, runs, false, &fused)) ||
        sweep(ctx, device, runs, true, &unfused) || in_flight(ctx, device, runs, no_fuse))
        return 1;
    if (!no_fuse)
        printf("us per op: fused %.4f, unfused %.4f (%.1fx)\n", fused, unfused,
               fused > 0 ? unfused / fused : 0.0);
    vkml_context_destroy(&ctx);
    return 0;
}
