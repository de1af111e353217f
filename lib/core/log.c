#include "core/common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -1: not read from the environment yet. Relaxed: the level is a hint, and a racing
 * first read of VKML_LOG gives the same value on every thread. */
static atomic_int log_level = -1;

static int level_from_env(void)
{
    const char *env = getenv("VKML_LOG");
    if (!env)
        return VKML_LOG_WARN;
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < (int)VKML_ARRAY_SIZE(names); i++)
        if (strcmp(env, names[i]) == 0)
            return i;
    return VKML_LOG_WARN;
}

void vkml_log_set_level(vkml_log_level level)
{
    if (!getenv("VKML_LOG"))
        atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
}

void vkml_log(vkml_log_level level, const char *fmt, ...)
{
    int current = atomic_load_explicit(&log_level, memory_order_relaxed);
    if (current < 0) {
        current = level_from_env();
        atomic_store_explicit(&log_level, current, memory_order_relaxed);
    }
    if ((int)level > current)
        return;
    static const char *const tags[] = {"error", "warning", "info", "debug"};
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "vkml %s: %s\n", tags[level], line);
}
