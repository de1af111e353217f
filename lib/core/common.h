#pragma once
/* Shared internals: error reporting, logging, checked arithmetic, an arena allocator. */
#include "vkml/vkml.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VKML_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define VKML_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* FNV-1a: h (VKML_FNV1A_SEED to start) extended over n bytes of data. */
#define VKML_FNV1A_SEED 0xcbf29ce484222325ull
static inline uint64_t vkml_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Fills err (may be NULL) and returns status, so callers can `return vkml_fail(...)`.
 * The message is also logged at debug level. */
vkml_status vkml_fail(vkml_error *err, vkml_status status, const char *fmt, ...) VKML_PRINTF(3, 4);
/* Prefixes an existing message with more context ("node 'conv1': ..."). */
void vkml_error_prefix(vkml_error *err, const char *fmt, ...) VKML_PRINTF(2, 3);

/* A log sink: where the messages of one context (or one session, one model load) go. */
typedef struct log_sink {
    vkml_log_callback callback; /* NULL: stderr */
    void *user;                 /* passed to callback */
    int level;                  /* messages up to this vkml_log_level; -1: the default
                                   (VKML_LOG_WARN); the environment's VKML_LOG wins */
} log_sink;
/* Messages logged on the calling thread go to `sink` (NULL: stderr at the default level)
 * until log_scope_leave(the returned previous sink). The sink must outlive the scope. */
const log_sink *log_scope_enter(const log_sink *sink);
void log_scope_leave(const log_sink *previous);
/* Logs to the calling thread's sink. Thread-safe. */
void vkml_log(vkml_log_level level, const char *fmt, ...) VKML_PRINTF(2, 3);
#define VKML_LOGE(...) vkml_log(VKML_LOG_ERROR, __VA_ARGS__)
#define VKML_LOGW(...) vkml_log(VKML_LOG_WARN, __VA_ARGS__)
#define VKML_LOGI(...) vkml_log(VKML_LOG_INFO, __VA_ARGS__)
#define VKML_LOGD(...) vkml_log(VKML_LOG_DEBUG, __VA_ARGS__)

/* a * b, false on overflow (or a negative operand). */
bool vkml_mul_size(size_t a, size_t b, size_t *out);
/* Whether environment variable `name` switches something on: set, not empty, not "0"
 * (the VKML_NO_* and test switches). */
bool vkml_env_flag(const char *name);
/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t vkml_now_ns(void);
/* Bytes of a dense tensor (strings: the pointer array, as vkml_dtype_bytes); false on
 * overflow, negative dims or unknown dtype. */
bool vkml_tensor_bytes(vkml_dtype dtype, int rank, const int64_t *dims, size_t *out);

/* float16 / bfloat16 bit patterns <-> float (core/half.c): round to nearest even; inf,
 * NaN and subnormals kept. */
float vkml_half_to_float(uint16_t h);
uint16_t vkml_half_from_float(float f);
/* The same over n elements (F16C where the CPU has it: the runs' copies of float16 graph
 * inputs and outputs). */
void vkml_halves_from_floats(uint16_t *dst, const float *src, size_t n);
void vkml_floats_from_halves(float *dst, const uint16_t *src, size_t n);
float vkml_bfloat16_to_float(uint16_t b);
uint16_t vkml_bfloat16_from_float(float f);

/* Bytes of count elements of dtype, packed types rounded up to whole bytes, strings
 * count * sizeof(const char *) (their pointer array); false on overflow or a dtype
 * without storage. */
bool vkml_dtype_bytes(vkml_dtype dtype, size_t count, size_t *out);

/* core/irq_cpu.c: the CPU that services the interrupts of PCI device
 * domain:bus:device.function (the busiest of them, where one CPU takes it), or -1: spread
 * over CPUs, unknown, or not Linux. */
int vkml_pci_irq_cpu(uint32_t domain, uint32_t bus, uint32_t device, uint32_t function);
/* The same with every path under `root` ("" for the real ones; tests give a tree of their
 * own: ROOT/sys/bus/pci/devices/ADDR/msi_irqs/N, ROOT/proc/interrupts, ROOT/proc/irq/N/). */
int vkml_pci_irq_cpu_at(const char *root, uint32_t domain, uint32_t bus, uint32_t device,
                        uint32_t function);
/* Takes `cpu` out of the calling thread's CPU affinity, when it is in it with others (the
 * thread moves at once if it ran there); true when it did. */
bool vkml_thread_avoid_cpu(int cpu);

/* The small ONNX types (core/small_float.c). Float8/float4 bit patterns <-> values, round
 * to nearest even; saturate as Cast's attribute (beyond the largest finite value, infinity
 * included: that value; otherwise infinity or NaN as the format has). float8e8m0 rounds as
 * vkml_e8m0_encode's mode. */
bool vkml_dtype_is_small_float(vkml_dtype dtype);
double vkml_small_float_decode(vkml_dtype dtype, unsigned bits);
unsigned vkml_small_float_encode(vkml_dtype dtype, double x, bool saturate);
typedef enum vkml_e8m0_round { VKML_E8M0_UP, VKML_E8M0_DOWN, VKML_E8M0_NEAREST } vkml_e8m0_round;
unsigned vkml_e8m0_encode(float x, vkml_e8m0_round mode, bool saturate);
/* int4/uint4/int2/uint2: value of a bit pattern, its range, and the pattern of v
 * wrapped to the width (as Cast and C integer conversions do; clamp first to saturate). */
int64_t vkml_small_int_decode(vkml_dtype dtype, unsigned bits);
void vkml_small_int_range(vkml_dtype dtype, int64_t *lo, int64_t *hi);
unsigned vkml_small_int_encode(vkml_dtype dtype, int64_t v);
/* Element i of a packed array of `bits`-wide elements (4 or 2; low bits first). */
unsigned vkml_packed_get(const void *data, size_t i, unsigned bits);
void vkml_packed_set(void *data, size_t i, unsigned bits, unsigned v);

/* Arena: many small allocations freed at once. Not thread-safe. */
typedef struct vkml_arena vkml_arena;
vkml_arena *vkml_arena_create(void);
void vkml_arena_destroy(vkml_arena **arena);
/* Zeroed, 16-byte aligned; NULL on out of memory. */
void *vkml_arena_alloc(vkml_arena *arena, size_t size);
/* count * size, checked; zeroed. */
void *vkml_arena_calloc(vkml_arena *arena, size_t count, size_t size);
char *vkml_arena_strdup(vkml_arena *arena, const char *s);
char *vkml_arena_strndup(vkml_arena *arena, const char *s, size_t n);
void *vkml_arena_memdup(vkml_arena *arena, const void *p, size_t size);
