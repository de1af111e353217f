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

/* The embedder's sink, or none (stderr). The lock also serialises the callback's calls,
 * so after an unset returns the callback is never called again with that user. */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static vkml_log_callback sink_callback;
static void *sink_user;
static int sink_refs; /* contexts created with this pair and not freed yet */

void vkml_log_set_callback(vkml_log_callback callback, void *user)
{
    if (!callback)
        return;
    pthread_mutex_lock(&sink_lock);
    if (sink_callback == callback && sink_user == user) {
        sink_refs++;
    } else {
        sink_callback = callback;
        sink_user = user;
        sink_refs = 1;
    }
    pthread_mutex_unlock(&sink_lock);
}

void vkml_log_unset_callback(vkml_log_callback callback, void *user)
{
    pthread_mutex_lock(&sink_lock);
    if (callback && sink_callback == callback && sink_user == user && --sink_refs == 0) {
        sink_callback = NULL;
        sink_user = NULL;
    }
    pthread_mutex_unlock(&sink_lock);
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
    pthread_mutex_lock(&sink_lock);
    if (sink_callback)
        sink_callback(sink_user, level, line);
    else
        fprintf(stderr, "vkml %s: %s\n", tags[level], line);
    pthread_mutex_unlock(&sink_lock);
}
