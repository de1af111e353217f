#pragma once
/* The ceilings of one Vulkan device, measured with plain Vulkan on vkml's own VkDevice
 * (bench_ceiling.c): what bench_peak prints and what bench_gemm divides each kernel by.
 *   fp32 FMA       peak_fma.comp: independent vec4 fma chains; GFLOP/s = 2 x FMAs / time
 *   fp16 coop      peak_coop.comp: 16x16x16 float16 MulAdds into float32 accumulators
 *                  (GL_NV_cooperative_matrix), 2 x 16^3 FLOP each; only where the device
 *                  has cooperative matrices (gpu_caps.cooperative_matrix)
 *   int8 coop      peak_coop_int8.comp: 16x16x32 int8 MulAdds into int32 accumulators
 *                  (GL_KHR_cooperative_matrix), 2 x 16 x 16 x 32 operations each; only
 *                  where qmatmul_coop.comp runs (gpu_caps.coop_int8)
 *   fp16 coop fed  peak_coop_smem.comp: the fp16 MulAdds with their fragments read from
 *   from shared    shared memory every K slice of 16, as gemm_coop.comp's 128 x 128 block
 *                  reads them (4 subgroups of 64 x 64); also with its barrier every K step
 *                  of 32 (GL_KHR_cooperative_matrix: where the int8 one runs)
 *   copy           peak_memory.comp: a vec4 copy, bytes read + written / time
 *   read           the same reading only (a sum per invocation), bytes read + written / time
 * Each is the best of `runs` dispatches after a warm-up one, timed with timestamp queries
 * around the dispatch (host time around submit and wait where the queue has none), and
 * each kernel's result is checked against the value the host expects. */
#include "vulkan/vk_device.h"

#include <stdbool.h>

typedef struct bench_ceilings {
    double fma_gflops;     /* GFLOP/s */
    double coop_gflops;    /* GFLOP/s; 0: not measured (coop_note says why) */
    double coop_int8_gops; /* GOP/s; 0: not measured */
    double coop_smem_gflops, coop_smem_barrier_gflops; /* GFLOP/s; 0: not measured */
    double copy_gbs;                                   /* GB/s (1e9 bytes), read + written */
    double read_gbs;                                   /* GB/s */
    const char *coop_note;
    bool device_timer;     /* timestamp queries, else host time */
    uint64_t memory_bytes; /* of the source buffer of copy and read */
    int runs;
} bench_ceilings;

/* Measures the ceilings of vd; small: sizes that run in well under a second on lavapipe
 * (the test), else sizes that fill a large GPU (several ms each). false, with the reason
 * printed on stderr, when a Vulkan call fails or a kernel's result is wrong. */
bool bench_ceilings_measure(vk_device *vd, bool small, int runs, bench_ceilings *out);

/* Prints c as a table: ceiling, value, unit; and the method in a line. */
void bench_ceilings_print(const bench_ceilings *c);
