/* libFuzzer target: bytes -> model load -> session on the CPU device (shape inference,
 * constant folding, planning) -> one run on zero inputs when they are small. Any outcome
 * is fine except a crash, a leak, a sanitizer report or a hang.
 * Built a second time with -DFUZZ_VULKAN=1 (fuzz_model_gpu): the session is on Vulkan
 * device 0 (lavapipe in CI), so the GPU kernels' support checks, recording and shaders
 * see the same hostile models; nodes the GPU refuses run on the CPU as in real use.
 * The bytes are also loaded as a model file is (ONNX_CONST_REALIGN: misaligned weights
 * moved within a writable copy of exactly their size), so those writes see them too. */
#include "onnx/model.h"

#include <vkml/vkml.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Iterations a Loop may take per run: a fuzzed body runs the model's kernels each time, so
 * the session default (65,536) would turn a small Loop into a timeout. */
#define FUZZ_MAX_LOOP_ITERATIONS 64

/* Runs only when the inputs and outputs together stay below this many bytes. */
#define FUZZ_RUN_MAX_BYTES ((size_t)256 << 10)

#ifndef FUZZ_VULKAN
#define FUZZ_VULKAN 0
#endif

static vkml_context *fuzz_context(void)
{
    static vkml_context *ctx;
    if (!ctx) {
        vkml_context_params params = {
            .disable_vulkan = !FUZZ_VULKAN, .log_level = VKML_LOG_ERROR, .log_level_set = true};
        vkml_error err;
        if (vkml_context_create(&params, &ctx, &err) != VKML_OK)
            abort(); /* the harness itself is broken */
    }
    return ctx;
}

/* Zero-filled tensors of the shapes the session reports; false when they are too big. */
static bool alloc_zeroed(const vkml_tensor_info *(*info_of)(const vkml_session *, size_t),
                         const vkml_session *s, size_t count, vkml_tensor *out, size_t *budget)
{
    for (size_t i = 0; i < count; i++) {
        const vkml_tensor_info *info = info_of(s, i);
        if (!info || info->rank < 0)
            return false;
        size_t n = vkml_tensor_element_count(info->rank, info->dims);
        size_t bytes = n * vkml_dtype_size(info->dtype);
        if (vkml_dtype_size(info->dtype) == 0 || bytes / vkml_dtype_size(info->dtype) != n ||
            bytes > *budget)
            return false;
        *budget -= bytes;
        out[i] = (vkml_tensor){.dtype = info->dtype, .rank = info->rank, .size = bytes};
        for (int d = 0; d < info->rank; d++)
            out[i].dims[d] = info->dims[d];
        out[i].data = calloc(1, bytes ? bytes : 1);
        if (!out[i].data)
            return false;
    }
    return true;
}

static void run_once(vkml_session *s)
{
    size_t n_in = vkml_session_input_count(s), n_out = vkml_session_output_count(s);
    vkml_tensor *in = calloc(n_in + 1, sizeof(*in)), *out = calloc(n_out + 1, sizeof(*out));
    size_t budget = FUZZ_RUN_MAX_BYTES;
    if (in && out && alloc_zeroed(vkml_session_input, s, n_in, in, &budget) &&
        alloc_zeroed(vkml_session_output, s, n_out, out, &budget)) {
        vkml_error err;
        (void)vkml_session_run(s, in, n_in, out, n_out, &err);
    }
    for (size_t i = 0; in && i < n_in; i++)
        free(in[i].data);
    for (size_t i = 0; out && i < n_out; i++)
        free(out[i].data);
    free(in);
    free(out);
}

/* The context (and, for Vulkan, the driver's instance) before any input: what it
 * allocates once is not an input's leak. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_context();
    return 0;
}

/* The loader as vkml_model_load_file runs it, on a private writable copy of the bytes. */
static void load_realigned(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    graph *g = NULL;
    vkml_error err;
    if (!copy)
        return;
    if (size)
        memcpy(copy, data, size);
    if (onnx_load_graph(copy, size, NULL, ONNX_CONST_REALIGN, &g, &err) == VKML_OK)
        graph_destroy(&g);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkml_model *model = NULL;
    vkml_error err;
    load_realigned(data, size);
    if (vkml_model_load_memory(data, size, NULL, &model, &err) != VKML_OK)
        return 0;
    vkml_context *ctx = fuzz_context();
    bool gpu = FUZZ_VULKAN && vkml_context_device_count(ctx) > 0;
    vkml_session_params params = {.device = gpu ? 0 : VKML_DEVICE_CPU,
                                  .max_loop_iterations = FUZZ_MAX_LOOP_ITERATIONS};
    vkml_session *session = NULL;
    if (vkml_session_create(ctx, model, &params, &session, &err) == VKML_OK)
        run_once(session);
    vkml_session_destroy(&session);
    vkml_model_destroy(&model);
    return 0;
}
