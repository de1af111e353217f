#pragma once
/* Helpers shared by vkml's C tests: checks that count failures, the corpus location, the
 * CI rule (CI=true: a missing corpus or Vulkan device fails the test; elsewhere it is a
 * skip, exit code 77, which meson reports as SKIP) and the loop over devices x precisions
 * that session tests run on. */
#include "vkml/vkml.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int test_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* Checks a vkml call returned VKML_OK, printing its error message otherwise. */
#define CHECK_OK(call, errp)                                                                       \
    do {                                                                                           \
        vkml_status st_ = (call);                                                                  \
        CHECK(st_ == VKML_OK, "%s -> %s: %s", #call, vkml_status_name(st_), (errp)->message);      \
    } while (0)

#define TEST_SKIP 77

static inline int test_in_ci(void)
{
    const char *ci = getenv("CI");
    return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0);
}

/* Exits: 77 (skip) outside CI, 1 (failure) in CI. */
static inline void test_missing(const char *what)
{
    if (test_in_ci()) {
        fprintf(stderr, "FAIL: %s is missing and CI=true: this is a failure, not a skip\n", what);
        exit(1);
    }
    fprintf(stderr, "SKIP: %s is missing\n", what);
    exit(TEST_SKIP);
}

/* The corpus folder (VKML_CORPUS, set by meson), or exit through test_missing. */
static inline const char *test_corpus_dir(void)
{
    const char *dir = getenv("VKML_CORPUS");
    struct stat st;
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        test_missing("the test corpus (../shared/corpus or $VKML_CORPUS)");
    return dir;
}

/* "corpus/rel" into buf. */
static inline const char *test_corpus_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", test_corpus_dir(), rel);
    return buf;
}

#define TEST_VULKAN_DEVICE "a Vulkan device (install mesa-vulkan-drivers for lavapipe)"

/* Exits through test_missing when the context has no Vulkan device. */
static inline void test_require_vulkan(const vkml_context *ctx)
{
    if (vkml_context_device_count(ctx) < 1)
        test_missing(TEST_VULKAN_DEVICE);
}

/* Set by test_skip_gpu_part: test_finish then reports a skip, not a pass. */
static bool test_gpu_part_skipped;

/* For a test whose GPU part cannot run (no Vulkan device) while its CPU part goes on: under
 * CI=true a failure at once; elsewhere test_finish exits 77 (SKIP) once every CPU check has
 * passed, so a CPU-only run never reads as a pass of the GPU part. */
static inline void test_skip_gpu_part(void)
{
    if (test_gpu_part_skipped)
        return;
    test_gpu_part_skipped = true;
    if (test_in_ci()) {
        fprintf(stderr, "FAIL: %s is missing and CI=true: this is a failure, not a skip\n",
                TEST_VULKAN_DEVICE);
        test_failures++;
    } else {
        fprintf(stderr, "SKIP (GPU part): %s is missing; the CPU part runs\n", TEST_VULKAN_DEVICE);
    }
}

/* One device x precision pair of a session test (TEST_FOR_EACH_TARGET). */
typedef struct test_target {
    int device;               /* VKML_DEVICE_CPU, or a Vulkan device 0 .. count-1 */
    vkml_precision precision; /* one of the loop's precisions */
    int step_;                /* the loop's position */
} test_target;

/* Moves t to the next pair: devices in order (the CPU first when `cpu`), each at every
 * precision in turn. A context without a Vulkan device marks the GPU part skipped. */
static inline bool test_target_next(test_target *t, const vkml_context *ctx, bool cpu,
                                    const vkml_precision *precisions, int n_precisions)
{
    int n_gpus = ctx ? vkml_context_device_count(ctx) : 0;
    if (t->step_ == 0 && n_gpus < 1)
        test_skip_gpu_part();
    int first = cpu ? VKML_DEVICE_CPU : 0;
    if (!ctx || t->step_ >= (n_gpus - first) * n_precisions)
        return false;
    t->device = first + t->step_ / n_precisions;
    t->precision = precisions[t->step_ % n_precisions];
    t->step_++;
    return true;
}

/* for (test_target t ...) over the devices of ctx (with the CPU when `cpu`) x the given
 * precisions (one or more vkml_precision values):
 *   TEST_FOR_EACH_TARGET(t, ctx, true, VKML_PRECISION_FP32, VKML_PRECISION_FP16)
 *       run(ctx, model, t.device, t.precision);
 * Without a Vulkan device the loop visits the CPU alone and test_finish reports SKIP. */
#define TEST_FOR_EACH_TARGET(t, ctx, cpu, ...)                                                     \
    for (test_target t = {0}; test_target_next(                                                    \
             &t, (ctx), (cpu), (const vkml_precision[]){__VA_ARGS__},                              \
             (int)(sizeof((vkml_precision[]){__VA_ARGS__}) / sizeof(vkml_precision)));)
/* The CPU, then every Vulkan device, at fp32. */
#define TEST_FOR_EACH_DEVICE(t, ctx) TEST_FOR_EACH_TARGET(t, ctx, true, VKML_PRECISION_FP32)
/* Every Vulkan device, at fp32. */
#define TEST_FOR_EACH_GPU(t, ctx) TEST_FOR_EACH_TARGET(t, ctx, false, VKML_PRECISION_FP32)

/* Loads dir/name, checking the status is `want` and, when text is not NULL, that the
 * error message holds it. The model, or NULL. */
static inline vkml_model *test_load_model(const char *dir, const char *name, vkml_status want,
                                          const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    vkml_model *m = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_model_load_file(path, &m, &err);
    CHECK(st == want, "%s: load: %s, expected %s (%s)", name, vkml_status_name(st),
          vkml_status_name(want), err.message);
    if (text)
        CHECK(strstr(err.message, text), "%s: '%s' lacks '%s'", name, err.message, text);
    return m;
}

/* Deterministic pseudo-random floats in [lo, hi) (xorshift; seed per test). */
static inline float test_randf(uint64_t *state, float lo, float hi)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return lo + (hi - lo) * (float)((x >> 40) & 0xffffff) / (float)0x1000000;
}

/* The exit status for main(): 1 on a failed check, 77 (SKIP) when the GPU part was
 * skipped (test_skip_gpu_part), else 0. */
static inline int test_finish(const char *name)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
        return 1;
    }
    if (test_gpu_part_skipped) {
        printf("%s: CPU checks passed; GPU part skipped (no Vulkan device)\n", name);
        return TEST_SKIP;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}
