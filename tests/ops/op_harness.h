#pragma once
/*
 * The op test harness (tests/ops/op_harness.c): one node, fresh random inputs, run through
 * the CPU kernel (the reference) and through every Vulkan device of the machine (lavapipe
 * in CI), each output compared with the CPU's. One test file per op family uses it
 * (tests/ops/test_ops_<family>.c), looping over dtypes and odd shapes (5x7x11x13).
 *
 * Checks, per device: the device accepts the node when the case says it should
 * (oh_expect_gpu), every output has the CPU's dtype and shape, no NaN/Inf where the CPU
 * has none, floats within `bound` of the normalised max error
 *   max|dev - cpu| / max(1, max|cpu|)
 * and every integer/bool element equal. Device outputs are poisoned before the run.
 * Optional: expected values for an output (oh_expect), checked against the CPU kernel.
 *
 * Usage:
 *   oh_case *c = oh_new("LeakyRelu", 16);
 *   oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){5, 7, 11, 13}, -3, 3);
 *   oh_attr_float(c, "alpha", 0.1f);
 *   oh_run(c, "LeakyRelu f32", OH_BOUND_EXACT);  // runs, checks, frees c
 * A case may chain nodes (oh_then): each takes the previous node's first output as its
 * first input; the devices run the chain as one chunk (barriers between dependent
 * dispatches, views, memory reuse) and the last node's outputs are compared.
 * A random seed is printed; VKML_TEST_SEED reproduces it. Failures go through CHECK
 * (testutil.h); main() ends with `return oh_finish();`.
 */
#include "core/common.h"
#include "graph/graph.h"

#include <stdbool.h>
#include <stdint.h>

/* Normalised error bounds (see above). */
#define OH_BOUND_EXACT 1e-6          /* one rounding */
#define OH_BOUND_TRANSCENDENTAL 1e-5 /* exp, log, tanh, erf ... */
#define OH_BOUND_SUM 1e-5            /* sums in another order */
#define OH_BOUND_FP16 2e-3           /* float16 storage */

typedef struct oh_case oh_case;

/* A short name of a float dtype for labels: f16, f64, f32. */
static inline const char *oh_dtype_label(vkml_dtype dtype)
{
    return dtype == VKML_DTYPE_FLOAT16 ? "f16" : dtype == VKML_DTYPE_DOUBLE ? "f64" : "f32";
}

/* The bound for a float dtype: float16 storage rounds more than any float32 kernel. */
static inline double oh_bound(vkml_dtype dtype, double f32_bound)
{
    return dtype == VKML_DTYPE_FLOAT16 ? OH_BOUND_FP16 : f32_bound;
}

/* Opens the devices once (without a Vulkan device the CPU part runs on and oh_finish
 * reports SKIP, or a failure under CI=true: test_skip_gpu_part) and seeds the generator.
 * Called by oh_new when needed. */
void oh_init(void);
/* A case of one node of op `op` (ai.onnx) at `opset`, with one output. */
oh_case *oh_new(const char *op, int opset);
/* Appends a node of op `op` at `opset` whose first input is the previous node's first
 * output; the calls below (inputs, attributes, outputs) apply to it from then on. */
void oh_then(oh_case *c, const char *op, int opset);
/* Appends a graph input of random data: floats uniform in [lo, hi), integers uniform in
 * [lo, hi] (rounded), bool 0/1. Returns the input's index among the node's inputs. */
int oh_input(oh_case *c, vkml_dtype dtype, int rank, const int64_t *dims, double lo, double hi);
/* Appends a constant (initializer) input with the given data (copied; dense, host
 * layout). */
int oh_const(oh_case *c, vkml_dtype dtype, int rank, const int64_t *dims, const void *data);
/* Shorthand: a 1-D int64 constant. */
int oh_const_i64(oh_case *c, int n, const int64_t *values);
/* Appends an input of random data that is a constant (initializer) instead of a graph
 * input (weights). */
int oh_const_random(oh_case *c, vkml_dtype dtype, int rank, const int64_t *dims, double lo,
                    double hi);
/* Appends an omitted optional input (""). */
void oh_skip_input(oh_case *c);
/* Gives the node n outputs (default 1); an omitted optional output is made by
 * oh_skip_output(c, index) after oh_outputs. */
void oh_outputs(oh_case *c, int n);
void oh_skip_output(oh_case *c, int index);
/* Attributes. */
void oh_attr_int(oh_case *c, const char *name, int64_t v);
void oh_attr_ints(oh_case *c, const char *name, int n, const int64_t *v);
void oh_attr_float(oh_case *c, const char *name, float v);
void oh_attr_floats(oh_case *c, const char *name, int n, const float *v);
void oh_attr_string(oh_case *c, const char *name, const char *s);
/* Whether every Vulkan device must accept the node (default true). false: a refusal is
 * reported (with its reason) but not a failure; an acceptance is still compared. */
void oh_expect_gpu(oh_case *c, bool expect);
/* The devices must refuse the case with a reason containing `reason` (they leave the node
 * to the CPU, whose kernel still runs). */
void oh_expect_refusal(oh_case *c, const char *reason);
/* The devices give views (OP_ALIAS outputs) their own memory: a copy instead of a view. */
void oh_no_alias(oh_case *c);
/* Two intermediates with disjoint lives must share device memory (where it is mapped). */
void oh_expect_reuse(oh_case *c);
/* After the CPU run, `edit` changes the graph (a malformed node the devices' support checks
 * would not let through); each device's session must then fail with a message containing
 * `text`, freeing what it made. */
void oh_expect_session_error(oh_case *c, void (*edit)(graph *g), const char *text);
/* Expected values of output `index` (dtype and shape as the CPU computes them): the CPU
 * kernel is checked against them (floats to `bound` as above). The data is read at
 * oh_run, so it must stay valid until then (not a block-scoped temporary). */
void oh_expect(oh_case *c, int index, const void *data);
/* The dims output `index` must have after the CPU run (for data-dependent outputs, whose
 * extent the kernel sets; checked before oh_expect's values). */
void oh_expect_dims(oh_case *c, int index, int rank, const int64_t *dims);
/* Expects the CPU's shape function or kernel to fail with this status and a message
 * containing `text` (bad attributes, shapes, out-of-range indices); the devices are not
 * run. */
void oh_expect_error(oh_case *c, vkml_status status, const char *text);
/* Gives the node a fused epilogue (graph_epilogue; copied): the CPU kernel and each device
 * apply it. Its residual (e->residual) is an input index the case has added. */
void oh_epilogue(oh_case *c, const graph_epilogue *e);
/* Which kernels the Vulkan devices use from now on, whatever they prefer (gpu_caps): */
typedef enum oh_kernels {
    OH_KERNELS_DEVICE, /* what each device prefers */
    OH_KERNELS_PLAIN,  /* per-output kernels (prefer_tiled off) */
    OH_KERNELS_TILED,  /* shared-memory tiles (prefer_tiled on) */
} oh_kernels;
/* gemm_force: gpu_caps.gemm_force (0: tile by shape, t > 0: tile t, -1: the old kernels). */
void oh_gpu_kernels(oh_kernels k, int gemm_force);
/* gpu_caps.coop_force of every device (0: gemm_coop.comp by shape; t > 0: its tile t for
 * every product it takes; -1: never) and whether sessions run as under precision fp32-fast
 * (float32 products on cooperative matrices); default 0, false. */
void oh_coop(int coop_force, bool fast_math);
/* gpu_caps.splitk_force of every device (0: split-K by shape; s > 1: s slices for every
 * gemm_tiled.comp product and integer product; -1: never); default 0. */
void oh_splitk(int splitk_force);
/* gpu_caps.splitk_wide of every device: forced slices of plain products of 128 rows or more
 * on 128 x 64 blocks; default false. */
void oh_splitk_wide(bool wide);
/* gpu_caps.cm2_force of every device (0: gemm_cm2.comp by shape; t > 0: its tile t for
 * every float16 product it takes; -1: never); default 0. */
void oh_cm2(int cm2_force);
/* The products the Vulkan devices have measured for their kernel choice
 * (vk_gemm_tune_measured), and forget=true: drop their choices, so that the next ones are
 * read from the cache file or measured again. */
int oh_gemm_tune_measured(bool forget);
/* The kernel choice by measurement (vk_gemm_tune.h), on the tiled kernels (lavapipe's when
 * turned on; a GPU's cooperative-matrix ones too): shapes() runs n cases (each checked
 * against the CPU as oh_run does); each is measured once a device, a line each in a fresh
 * cache folder, not again for the device's life, then read back from the file past lines
 * it cannot use; with each name of `forced` in VKML_GEMM_TUNE (a candidate that cannot
 * take a case leaves it by shape) the cases run again and nothing is measured. Leaves the
 * devices' kernels as they prefer. `what` labels the checks. */
void oh_tune_check(const char *what, void (*shapes)(void), int n, const char *const *forced,
                   int n_forced);
/* Devices with workgroup-scope cooperative matrices (gpu_caps.coopmat2). */
int oh_cm2_devices(void);
/* Devices with cooperative matrices (gpu_caps.cooperative_matrix). */
int oh_coop_devices(void);
/* Runs, checks, frees c. Returns whether every check passed. */
bool oh_run(oh_case *c, const char *label, double bound);
/* Prints the summary (cases run, GPU refusals); returns the exit status for main()
 * (test_finish: 0, 1, or 77 when the GPU part could not run). */
int oh_finish(void);
