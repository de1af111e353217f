#include "core/common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* VKML_LOG's level, -1 when unset; -2: not read yet. Relaxed: a racing first read of the
 * environment gives the same value on every thread. */
static atomic_int env_level = -2;

static int level_from_env(void)
{
    const char *env = getenv("VKML_LOG");
    if (!env)
        return -1;
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < (int)VKML_ARRAY_SIZE(names); i++)
        if (strcmp(env, names[i]) == 0)
            return i;
    return -1;
}

/* The calling thread's sink (log_scope_enter), or NULL. */
static _Thread_local const log_sink *thread_sink;

const log_sink *log_scope_enter(const log_sink *sink)
{
    const log_sink *previous = thread_sink;
    thread_sink = sink;
    return previous;
}

void log_scope_leave(const log_sink *previous)
{
    thread_sink = previous;
}

/* Serialises the callbacks' calls (vkml_log_callback promises one at a time) and the
 * lines written to stderr. */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

void vkml_log(vkml_log_level level, const char *fmt, ...)
{
    int env = atomic_load_explicit(&env_level, memory_order_relaxed);
    if (env == -2) {
        env = level_from_env();
        atomic_store_explicit(&env_level, env, memory_order_relaxed);
    }
    const log_sink *sink = thread_sink;
    int current = env >= 0 ? env : sink && sink->level >= 0 ? sink->level : VKML_LOG_WARN;
    if ((int)level > current)
        return;
    static const char *const tags[] = {"error", "warning", "info", "debug"};
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&sink_lock);
    if (sink && sink->callback)
        sink->callback(sink->user, level, line);
    else
        fprintf(stderr, "vkml %s: %s\n", tags[level], line);
    pthread_mutex_unlock(&sink_lock);
}
