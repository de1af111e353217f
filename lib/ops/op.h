#pragma once
/*
 * The operator schema: one entry per ONNX op vkml implements. The list itself is
 * op_list.h (an X-macro); op ids, the registry (op_find), vkml_op_count/vkml_op (which
 * feed `vkml ops`, the docs table and the conformance report) are generated from it.
 *
 * Each op family has a file here (conv.c, pool.c, ...) with its params struct, attribute
 * parser and shape function. Kernels live with their devices, each device keeping a
 * registry keyed by op id with the dtypes it runs: lib/cpu/cpu_kernel_list.h (C kernels
 * in lib/cpu/<family>.c) and lib/vulkan/vk_kernel_list.h (lowerings in
 * lib/vulkan/ops_<family>.c). A new device is a new registry, not a new column here.
 */
#include "graph/graph.h"

/* Highest ai.onnx opset the loader knows; a model importing a newer one is refused. */
#define VKML_MAX_OPSET 27

/* Attribute parser: reads the node's attributes once, at model load, into its params
 * struct (node->params, op_def.params_size bytes, zeroed, in the graph's arena). Shape
 * functions and every device's kernels read that struct instead of the attributes.
 * Attributes that later opsets moved to inputs (Clip min/max, Slice starts, ...) are read
 * from the constant inputs by the shape function. NULL: the op has no attributes. */
typedef vkml_status (*op_parse_fn)(const graph_node *node, void *params, vkml_error *err);

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
    /* OP_DATA_DEPENDENT nodes only: per output, the dims the kernel produced (it writes
     * them for each data_dependent output; same rank, each at most the bound). */
    int64_t (*out_dims)[VKML_MAX_RANK];
    /* Nodes with string outputs only: where the kernel allocates the strings its output
     * pointer arrays point to. Whoever runs the node keeps them as long as the outputs are
     * read (the fold arena for constants; a store the CPU device and the dynamic tail
     * empty at the start of each run). NULL when the node has no string output. */
    vkml_arena *strings;
} op_cpu_args;

enum op_flags {
    /* Output 0 holds input 0's bytes unchanged (Reshape, Flatten, Squeeze, Identity):
     * devices may give it the same memory instead of copying. */
    OP_ALIAS = 1u << 0,
    /* Kernels' dtype masks are checked against output 0 (Where, ConstantOfShape, Range)
     * instead of input 0. */
    OP_TYPE_FROM_OUTPUT = 1u << 1,
    /* The outputs depend on the input shapes only, not their data (Shape, Size): the node
     * is evaluated by its CPU kernel during inference, like a node of constant inputs, so
     * shape computations (Shape -> Gather -> Concat -> Reshape) fold away per session. */
    OP_FROM_SHAPES = 1u << 2,
    /* Some output's extent depends on the input data (NonZero, NonMaxSuppression): the
     * shape function gives an upper bound and marks the output data_dependent; the CPU
     * kernel writes the extent it produced to args->out_dims. Such a node folds when its
     * inputs are constants; otherwise its output can only be a graph output (a plan
     * refuses a data-dependent value that feeds another node, naming both). */
    OP_DATA_DEPENDENT = 1u << 3,
    /* No kernel on any device, by design: a plan rewrites the node into other ops before
     * it places anything (the sequence ops, passes/lower_seq.c). Its shape function only
     * refuses, for a graph that was not lowered (the model's shape probe). */
    OP_LOWERED = 1u << 4,
    /* Made by the planner, never read from a model (FusedElementwise, passes/fuse_eltwise.c):
     * its parser refuses it in a model, and the public op list leaves it out. */
    OP_INTERNAL = 1u << 5,
    /* Runs subgraphs (If, Loop, Scan; ops/control.h): a plan inlines, folds or leaves the
     * node to its dynamic tail, which runs the subgraphs on the host (passes/cf_run.c). */
    OP_CONTROL_FLOW = 1u << 6,
};

/* One id per op of op_list.h: OP_ID_Add, OP_ID_Conv, ...; indexes the device kernel
 * registries (lib/cpu/cpu_kernel_list.h, lib/vulkan/vk_kernel_list.h). */
typedef enum op_id {
#define OP(name_, domain_, since_, last_, flags_, params_, parse_, infer_) OP_ID_##name_,
#include "ops/op_list.h"
#undef OP
    OP_ID_COUNT
} op_id;

/* The schema of one op: what it is and how its shapes follow; no kernels (each device
 * keeps its own registry keyed by op_id). */
typedef struct op_def {
    op_id id;
    const char *name;
    const char *domain; /* "" for ai.onnx */
    int since_version;  /* oldest opset implemented */
    int last_version;   /* newest op version implemented (valid up to VKML_MAX_OPSET) */
    unsigned flags;
    size_t params_size; /* bytes of node->params */
    op_parse_fn parse;
    op_infer_fn infer;
} op_def;

/* Runs single nodes on the host, on host memory: the kernels constant folding and a plan's
 * dynamic tail use. A device kind that has such kernels provides one
 * (device_class.host_runner; the registry's device_host_runner()); the passes call it and
 * no device directly. */
typedef void (*op_range_fn)(void *ctx, int64_t begin, int64_t end);

typedef struct op_host_runner {
    bool (*has_kernel)(const op_def *op); /* whether run takes nodes of this op */
    vkml_status (*run)(const op_cpu_args *args, vkml_error *err);
    /* fn over [0, count) split across the host's threads, each item about cost_per_item
     * flops; returns when all ran (NULL: the caller runs them on its thread) */
    void (*parallel_for)(int64_t count, double cost_per_item, op_range_fn fn, void *ctx);
} op_host_runner;

/* For ops without attributes (params column of op_list.h). */
typedef struct op_no_params {
    char unused;
} op_no_params;

/* Bit of a dtype in a kernel's dtype mask; masks for the common sets. */
#define DT(t) (1u << VKML_DTYPE_##t)
#define DT_FLOATS (DT(FLOAT) | DT(FLOAT16) | DT(DOUBLE))
#define DT_SINTS (DT(INT8) | DT(INT16) | DT(INT32) | DT(INT64))
#define DT_UINTS (DT(UINT8) | DT(UINT16) | DT(UINT32) | DT(UINT64))
#define DT_INTS (DT_SINTS | DT_UINTS)
#define DT_NUMERIC (DT_FLOATS | DT_INTS)
#define DT_ALL (DT_NUMERIC | DT(BOOL) | DT(BFLOAT16))
/* The small types: one byte per element (float8) and packed (4- and 2-bit). */
#define DT_FLOAT8 (DT(FLOAT8E4M3FN) | DT(FLOAT8E4M3FNUZ) | DT(FLOAT8E5M2) | DT(FLOAT8E5M2FNUZ))
#define DT_PACKED (DT(INT4) | DT(UINT4) | DT(FLOAT4E2M1) | DT(INT2) | DT(UINT2))
#define DT_SMALL (DT_FLOAT8 | DT(FLOAT8E8M0) | DT_PACKED)
/* "float,int32,..." for a mask, into buf. */
const char *op_dtype_mask_string(uint32_t mask, char *buf, size_t size);
/* The dtype a kernel's mask is checked against (input 0, or output 0 with
 * OP_TYPE_FROM_OUTPUT; UNDEFINED when absent). */
vkml_dtype op_node_type(const graph_value *values, const graph_node *node);

/* Resolves node->op from the table and parses its attributes into node->params (arena
 * memory). Fails UNSUPPORTED when the op or its opset is not implemented, INVALID_MODEL
 * when an attribute is bad; the message names the op, not the node (callers prefix it). */
vkml_status op_bind_node(vkml_arena *arena, graph_node *node, vkml_error *err);

/* The entry for (domain, name), or NULL. domain NULL or "" or "ai.onnx" is ai.onnx. */
const op_def *op_find(const char *domain, const char *name);
size_t op_table_size(void);
const op_def *op_table_entry(size_t index);

/* Shared helpers for shape functions (ops/shape_util.c). */
/* Checks input i exists and has a known shape; message names node and input. */
vkml_status op_require_input(const graph_value *values, const graph_node *n, int i,
                             vkml_error *err);
/* op_require_input, and the input's dtype has a byte size (no strings): UNSUPPORTED
 * naming it otherwise. */
vkml_status op_require_data(const graph_value *values, const graph_node *n, int i, vkml_error *err);
/* Numpy broadcasting of two shapes; fails naming the node when incompatible. */
vkml_status op_broadcast(const graph_node *n, int rank_a, const int64_t *a, int rank_b,
                         const int64_t *b, int *rank_out, int64_t *out, vkml_error *err);
/* Sets output i's dtype and shape. */
void op_set_output(graph_value *values, const graph_node *n, int i, vkml_dtype dtype, int rank,
                   const int64_t *dims);
/* Reads an int64/int32 constant input as int64s (Reshape's shape, ...). Fails naming the
 * node when the input is not a constant. */
vkml_status op_const_ints(const graph_value *values, const graph_node *n, int i, int64_t *out,
                          size_t max, size_t *count, vkml_error *err);
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
vkml_status op_require_counts(const graph_node *n, int min_inputs, int max_inputs, int min_outputs,
                              vkml_error *err);
/* An attribute an op reads, with the type ONNX gives it. */
typedef struct op_attr_spec {
    const char *name;
    graph_attr_type type;
} op_attr_spec;
/* Fails (INVALID_MODEL, naming the attribute) when one of the `count` attributes in
 * `specs` is present on the node with another type. */
vkml_status op_check_attr_types(const graph_node *n, const op_attr_spec *specs, size_t count,
                                vkml_error *err);
