/* The environment switches and the monotonic clock (core/common.h). */
#include "core/common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

bool vkml_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

uint64_t vkml_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
