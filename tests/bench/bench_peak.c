/* Benchmark: the ceilings of one Vulkan device (bench_ceiling.h: fp32 FMA, fp16 and int8
 * cooperative matrices, fp16 fed from shared memory, memory copy and read), as one table;
 * bench_gemm divides each of its kernels by them.
 *
 *   bench_peak [--small] [DEVICE] [RUNS]   DEVICE: a vkml GPU index (default 0); RUNS:
 *   timed dispatches per ceiling, the best counts (default 10; --small: 3). --small: sizes
 *   that run in well under a second on lavapipe (taken anyway on a Vulkan CPU device). */
#include "bench_ceiling.h"
#include "bench_util.h"
#include "plan/context.h"

int main(int argc, char **argv)
{
    bool small = argc > 1 && strcmp(argv[1], "--small") == 0;
    const char *dev_text = argc > 1 + small ? argv[1 + small] : "0";
    int runs = argc > 2 + small ? atoi(argv[2 + small]) : small ? 3 : 10;
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    int device;
    vkml_device_info info;
    if (vkml_context_create(NULL, &ctx, &err) != VKML_OK ||
        vkml_context_parse_device(ctx, dev_text, &device, &err) != VKML_OK || device < 0 ||
        vkml_context_device_info(ctx, device, &info, &err) != VKML_OK) {
        fprintf(stderr, "bench_peak: a Vulkan device index, please: %s\n", err.message);
        vkml_context_destroy(&ctx);
        return 1;
    }
    small = small || info.type == VKML_DEVICE_TYPE_VULKAN_CPU;
    printf("device %s (%s), %s sizes\n", dev_text, info.name, small ? "small" : "full");
    bench_ceilings c;
    bool ok = bench_ceilings_measure((vk_device *)context_device(ctx, device), small, runs, &c);
    if (ok)
        bench_ceilings_print(&c);
    vkml_context_destroy(&ctx);
    return ok ? 0 : 1;
}
