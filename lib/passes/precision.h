#pragma once
/*
 * Precision as a plan-time rewrite (vkml_session_params.precision).
 *
 * VKML_PRECISION_FP16 gives a session its own copy of the model's graph in which:
 *   - nodes of the fp16 op list (conv, GEMM, elementwise, pooling, normalisation, data
 *     movement) whose float32 tensors can all be float16, whose shape function accepts
 *     that and which the session's first device runs in float16, read and write float16;
 *   - float32 initializers they read are converted to float16 once, into that graph's
 *     arena (shared by every lane of the session, freed with it);
 *   - Casts are inserted wherever a float16 value meets a float32 reader; at the graph's
 *     inputs and outputs too, unless the session converts them as it copies (host_io
 *     below: the caller's tensors stay float32 either way);
 *   - Resize and Upsample move float16 data while their roi and scales stay float32;
 *   - nodes whose outputs are folded to constants (Shape of an activation) read their
 *     inputs as produced: no Cast runs for them;
 *   - every other node (Exp, Pow, sums and products whose range overflows float16, Range,
 *     whose float inputs are its values' parameters) stays float32.
 * Every float16 kernel computes in float32 (shaders/common/dtype.glsl: A is float for
 * DTYPE_F16; lib/cpu/cpu_widen.h on the CPU), so reductions, GEMM and conv accumulate in
 * float32; only the stored tensors are float16.
 */
#include "ops/op.h"

/* The device a float16 graph is built for, as the pass sees it: whether it runs node n
 * with these value types (its support check; the plan provides it). */
typedef struct precision_device {
    bool (*runs)(void *ctx, const graph_value *values, const graph_node *n);
    void *ctx;
} precision_device;

/* Builds the float16 graph of `g` for device `dev` (a session's first device). Types are
 * inferred with symbolic dims bound to symbolic_value, constants folded through `runner`. host_io
 * (NULL, or one flag per graph input, then per output): graph inputs that only float16 nodes read,
 * and graph outputs made in float16, are float16 in the result, flagged here (same value
 * indices, no Cast): whoever copies them in and out converts (the session's runs do).
 * Without host_io, Casts at the inputs and outputs keep them float32. *n_half (may be
 * NULL) is the number of nodes that run in float16. graph_destroy the result. */
vkml_status precision_fp16_graph(const graph *g, const precision_device *dev,
                                 const op_host_runner *runner, int64_t symbolic_value,
                                 bool *host_io, graph **out, int *n_half, vkml_error *err);

/* A float16 model on the CPU device, whose kernels compute float16 in float32 (no CPU
 * oneDNN 2.6 runs has float16 arithmetic): the same rewrite the other way. Every node with
 * a float16 tensor whose shape function gives float32 outputs for float32 inputs there
 * (every op but those whose output type is an attribute's, as Cast's, or CastLike)
 * computes and stores float32; float16 initializers get float32 copies; Casts join the
 * float16 values that remain (graph inputs and outputs, explicit Casts to float16) to the
 * float32 ones. Intermediates then stay float32 between nodes, as ONNX Runtime's CPU
 * provider keeps them, rather than rounding to float16 at every node. *out NULL (and
 * *n_wide 0) where that pays nothing: no float16 value passes between two such nodes. */
vkml_status precision_fp32_graph(const graph *g, const op_host_runner *runner,
                                 int64_t symbolic_value, graph **out, int *n_wide, vkml_error *err);
