#pragma once
/*
 * The operator table: one entry per ONNX op vkml implements. The list itself is
 * op_list.h (an X-macro); the registry (op_find), vkml_op_count/vkml_op (which feed
 * `vkml inspect`, the docs table and the conformance report) are all generated from it.
 *
 * Each op family has a file here (conv.c, pool.c, ...) with its attribute parsing (a
 * params struct shared by the CPU and GPU kernels) and its shape function. Its CPU kernel
 * is in lib/cpu/, its Vulkan lowering in lib/vulkan/ops_*.c.
 */
#include "graph/graph.h"

/* Highest ai.onnx opset the loader knows; a model importing a newer one is refused. */
#define VKML_MAX_OPSET 27

/* Shape/type function: checks the node's inputs (types, ranks, attributes, constant
 * inputs it needs) and sets dtype/rank/dims of its outputs in `values`. Returns
 * VKML_ERROR_UNSUPPORTED for valid ONNX the kernels lack (e.g. a dtype), naming it. */
typedef vkml_status (*op_infer_fn)(graph_value *values, const graph_node *node, vkml_error *err);

/* A node ready to run on the CPU: shapes in values, data pointers per input/output
 * (NULL for omitted optional ones). */
typedef struct op_cpu_args {
    const graph_value *values;
    const graph_node *node;
    const void *const *in;
    void *const *out;
} op_cpu_args;
typedef vkml_status (*op_cpu_fn)(const op_cpu_args *args, vkml_error *err);

/* Vulkan lowering: records the node's dispatches (lib/vulkan/vk_ops.h). */
struct gpu_recorder;
struct gpu_caps;
typedef vkml_status (*op_gpu_fn)(struct gpu_recorder *rec, const graph_value *values,
                                 const graph_node *node, vkml_error *err);
/* Whether the Vulkan lowering handles this node (dtype, rank, attributes) on a device
 * with these capabilities; fills why when not. */
typedef bool (*op_gpu_supports_fn)(const graph_value *values, const graph_node *node,
                                   const struct gpu_caps *caps, char *why, size_t why_size);

enum op_flags {
    /* Output 0 holds input 0's bytes unchanged (Reshape, Flatten, Squeeze, Identity):
     * devices may give it the same memory instead of copying. */
    OP_ALIAS = 1u << 0,
};

typedef struct op_def {
    const char *name;
    const char *domain;   /* "" for ai.onnx */
    int since_version;    /* oldest opset implemented */
    int last_version;     /* newest op version implemented (valid up to VKML_MAX_OPSET) */
    const char *dtypes;   /* for the docs: "float", "float,int32,int64", ... */
    unsigned flags;
    op_infer_fn infer;
    op_cpu_fn cpu;
    op_gpu_fn gpu;                 /* NULL: no Vulkan kernel */
    op_gpu_supports_fn gpu_supports; /* NULL with gpu set: every node the infer accepts */
} op_def;

/* The entry for (domain, name), or NULL. domain NULL or "" or "ai.onnx" is ai.onnx. */
const op_def *op_find(const char *domain, const char *name);
size_t op_table_size(void);
const op_def *op_table_entry(size_t index);

/* Shared helpers for shape functions (ops/shape_util.c). */
/* Checks input i exists and has a known shape; message names node and input. */
vkml_status op_require_input(const graph_value *values, const graph_node *n, int i,
                             vkml_error *err);
/* Numpy broadcasting of two shapes; fails naming the node when incompatible. */
vkml_status op_broadcast(const graph_node *n, int rank_a, const int64_t *a, int rank_b,
                         const int64_t *b, int *rank_out, int64_t *out, vkml_error *err);
/* Sets output i's dtype and shape. */
void op_set_output(graph_value *values, const graph_node *n, int i, vkml_dtype dtype, int rank,
                   const int64_t *dims);
/* Reads an int64/int32 constant input as int64s (Reshape's shape, ...). Fails naming the
 * node when the input is not a constant. */
vkml_status op_const_ints(const graph_value *values, const graph_node *n, int i,
                          int64_t *out, size_t max, size_t *count, vkml_error *err);
/* Element strides of a dense tensor (rank, dims) read at the broadcast shape
 * (out_rank, out_dims), right-aligned: 0 where the tensor has size 1 or lacks the dim. */
void op_broadcast_strides(int rank, const int64_t *dims, int out_rank, const int64_t *out_dims,
                          int64_t *strides);
/* Fails (UNSUPPORTED, naming input i and its dtype) unless input i's dtype is one of the
 * `n_allowed` in `allowed`. */
vkml_status op_require_dtype(const graph_value *values, const graph_node *n, int i,
                             const vkml_dtype *allowed, size_t n_allowed, vkml_error *err);
/* Fails (INVALID_MODEL) unless the node has between min and max inputs and at least
 * min_outputs outputs present at index 0. */
vkml_status op_require_counts(const graph_node *n, int min_inputs, int max_inputs,
                              int min_outputs, vkml_error *err);
/* An attribute an op reads, with the type ONNX gives it. */
typedef struct op_attr_spec {
    const char *name;
    graph_attr_type type;
} op_attr_spec;
/* Fails (INVALID_MODEL, naming the attribute) when one of the `count` attributes in
 * `specs` is present on the node with another type. */
vkml_status op_check_attr_types(const graph_node *n, const op_attr_spec *specs, size_t count,
                                vkml_error *err);
