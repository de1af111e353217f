#include "cpu/cpu_kernels.h"

void cpu_parallel_for(int64_t count, double cost_per_item, cpu_range_fn fn, void *ctx)
{
    (void)cost_per_item;
    if (count > 0)
        fn(ctx, 0, count);
}

int cpu_thread_count(void)
{
    return 1;
}
