#pragma once
/* Helpers shared by vkml's C tests: checks that count failures, the corpus location and
 * the CI rule (CI=true: a missing corpus or Vulkan device fails the test; elsewhere it is
 * a skip, exit code 77, which meson reports as SKIP). */
#include "vkml/vkml.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int test_failures;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            test_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

/* Checks a vkml call returned VKML_OK, printing its error message otherwise. */
#define CHECK_OK(call, errp)                                                              \
    do {                                                                                  \
        vkml_status st_ = (call);                                                         \
        CHECK(st_ == VKML_OK, "%s -> %s: %s", #call, vkml_status_name(st_),              \
              (errp)->message);                                                           \
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

/* Exits through test_missing when the context has no Vulkan device. */
static inline void test_require_vulkan(const vkml_context *ctx)
{
    if (vkml_context_device_count(ctx) < 1)
        test_missing("a Vulkan device (install mesa-vulkan-drivers for lavapipe)");
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

static inline int test_finish(const char *name)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}
