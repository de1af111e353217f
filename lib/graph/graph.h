#pragma once
/*
 * Graph IR: values (typed tensors with shapes) and nodes (op applications).
 *
 * A graph owns all its memory through one arena. Constant data (initializers) may point
 * into the model file's mapping, which the graph also owns (see graph_set_backing).
 *
 * Shapes: a value's `rank`/`dims` are what is known. Declared graph inputs keep symbolic
 * dims as -1 with a name in dim_names; shape inference (passes/infer.c) fills every
 * value's concrete shape once symbolic dims are bound (a session does this on its own
 * copy of the values, see graph_values_clone).
 */
#include "core/common.h"
#include "eltwise_ops.h" /* shaders/common: the op codes shared with GLSL */

/* ONNX AttributeProto.AttributeType values. */
typedef enum graph_attr_type {
    GRAPH_ATTR_UNDEFINED = 0,
    GRAPH_ATTR_FLOAT = 1,
    GRAPH_ATTR_INT = 2,
    GRAPH_ATTR_STRING = 3,
    GRAPH_ATTR_TENSOR = 4,
    GRAPH_ATTR_GRAPH = 5,
    GRAPH_ATTR_FLOATS = 6,
    GRAPH_ATTR_INTS = 7,
    GRAPH_ATTR_STRINGS = 8,
    GRAPH_ATTR_TENSORS = 9,
    GRAPH_ATTR_GRAPHS = 10,
    GRAPH_ATTR_SPARSE_TENSOR = 11,
    GRAPH_ATTR_SPARSE_TENSORS = 12,
    GRAPH_ATTR_TYPE_PROTO = 13,
    GRAPH_ATTR_TYPE_PROTOS = 14,
} graph_attr_type;

/* A constant tensor (initializer, Constant value, tensor attribute). Dense, row-major,
 * little-endian host layout. Strings (dtype STRING): data is an array of `const char *`
 * (UTF-8, NUL-terminated, in the graph's arena), size the array's bytes. */
typedef struct graph_tensor {
    const char *name;
    vkml_dtype dtype;
    int rank;
    int64_t dims[VKML_MAX_RANK];
    const void *data;
    size_t size; /* bytes at data */
} graph_tensor;

typedef struct graph_attr {
    const char *name;
    graph_attr_type type;
    float f;
    int64_t i;
    const char *s; /* STRING: bytes (NUL-terminated copy) */
    size_t s_len;
    const float *floats;   /* FLOATS */
    const int64_t *ints;   /* INTS */
    const char **strings;  /* STRINGS */
    size_t count;          /* elements of floats/ints/strings/tensors/graphs */
    graph_tensor *tensor;  /* TENSOR */
    graph_tensor *tensors; /* TENSORS */
    struct graph *graph;   /* GRAPH (subgraph; not executed by the slice's ops) */
    struct graph **graphs; /* GRAPHS */
} graph_attr;

typedef enum graph_value_kind {
    GRAPH_VALUE_INTERMEDIATE = 0, /* produced by a node */
    GRAPH_VALUE_INPUT,            /* a graph input the caller feeds */
    GRAPH_VALUE_CONSTANT,         /* initializer or folded constant: data is set */
} graph_value_kind;

typedef struct graph_value {
    const char *name;
    graph_value_kind kind;
    bool is_output;                       /* a graph output */
    vkml_dtype dtype;                     /* UNDEFINED until known */
    int rank;                             /* -1 until known */
    int64_t dims[VKML_MAX_RANK];          /* -1: symbolic or unknown */
    const char *dim_names[VKML_MAX_RANK]; /* symbolic dimension names, else NULL */
    bool data_dependent; /* dims are an upper bound; the producing kernel sets the extent
                            (OP_DATA_DEPENDENT ops; cleared when the node folds) */
    bool unbounded;      /* a data_dependent graph output the plan could bound by no
                            shape: its size is the run's (plan/tail.c) */
    const void *data;    /* CONSTANT: the values (dense, host layout; strings: an array
                            of const char *, as graph_tensor) */
    size_t data_size;
    int producer; /* node index, -1 for inputs and constants */
} graph_value;

struct op_def;

/* What a Conv, Gemm or MatMul node absorbed from the nodes after it: its result r (its own
 * bias included; MatMul: plus input `bias`, a constant along the last dim) becomes
 * act(r + R) when residual_first, else act(r) + R, where R is input `residual` (-1: none)
 * of the node's shape. */
typedef struct graph_epilogue {
    /* The activation (graph/fuse_epilogue.c): ELT_IDENTITY (none) or an op code of
     * shaders/common/eltwise_ops.h whose fuse is FUSE1_EPI or EPI, with its parameters. */
    eltwise_op act;
    float alpha, beta;
    /* Indices into the node's inputs, after its own (Conv, Gemm: 3, MatMul: 2), -1: none */
    int bias; /* MatMul only */
    int residual;
    /* MatMul only: the product times `scale` first (Muls of its inputs by constant scalars
     * it absorbed, as attention's query and key scales) */
    bool scaled;
    float scale;
    /* MatMul only: input k (0: A, 1: B) read through an absorbed permutation (Transposes,
     * and reshapes that add or drop dims of size 1: attention's head splits): its logical
     * dim j is dim view[k][j] of the stored value, or a dim of size 1 where that is -1.
     * view_rank[k] 0: read as stored. */
    int view_rank[2];
    int8_t view[2][VKML_MAX_RANK];
    bool residual_first;
    const char *absorbed; /* the absorbed ops in order, "Add+Relu" */
    /* A 2-D MaxPool after the rest (Conv only, no residual): the pool node's parsed
     * attributes (ops/pool.h's pool_attrs, in the model's arena) and opset, NULL when none.
     * The node's output is then the pool's (ops/conv.h: conv_params.pooled). */
    const void *pool;
    int pool_opset;
    /* A LayerNormalization over the last dim after the rest (MatMul and Gemm: an encoder's
     * projections and their residual; no pool), when norm: its epsilon, and the indices into
     * the node's inputs of its scale and of its bias (-1: none), after the residual. The
     * node's output is then the normalization's. */
    bool norm;
    float norm_epsilon;
    int norm_scale, norm_bias;
} graph_epilogue;

typedef struct graph_node {
    const char *name; /* "" when the model gives none */
    const char *op_type;
    const char *domain; /* "" for ai.onnx */
    int opset;          /* the model's opset for this node's domain */
    int *inputs;        /* value indices; -1 for an omitted optional input */
    int n_inputs;
    int *outputs; /* value indices; -1 for an omitted optional output */
    int n_outputs;
    graph_attr *attrs;
    int n_attrs;
    const struct op_def *op;        /* resolved from the op table at load (op_bind_node) */
    const void *params;             /* the op's params struct, attributes parsed once at load */
    const char *unsupported;        /* op NULL (a model loaded with allow_unsupported): why */
    const graph_epilogue *epilogue; /* fused epilogue (passes/fuse_epilogue.c), or NULL */
    /* A node with subgraphs (If, Loop, Scan): its last n_implicit inputs are the values of
     * this graph its subgraphs read by name (ONNX's outer scope), added at load so that
     * sorting, planning and liveness see them as the inputs they are. */
    int n_implicit;
} graph_node;

typedef struct graph {
    vkml_arena *arena;
    graph_value *values;
    int n_values, cap_values;
    graph_node *nodes; /* in topological order after graph_sort */
    int n_nodes, cap_nodes;
    int *inputs; /* graph inputs that are not initializers, in model order */
    int n_inputs;
    int *outputs; /* graph outputs, in model order */
    int n_outputs;
    int64_t opset; /* ai.onnx opset import */
    /* A subgraph (an If branch, a Loop or Scan body): the values it reads from enclosing
     * graphs (kind INPUT, not among `inputs`), and for each the index of its owning node's
     * input that carries it (one of the node's implicit inputs). */
    int *outer_values;
    int *outer_inputs;
    int n_outer;
    /* Keeps constant data alive: called with backing_ctx at graph_destroy. */
    void (*backing_release)(void *backing_ctx);
    void *backing_ctx;
} graph;

graph *graph_create(void);
void graph_destroy(graph **g);
void graph_set_backing(graph *g, void (*release)(void *), void *ctx);

/* Adds a value (name copied); returns its index or -1 on out of memory. Names need not be
 * unique at this point; graph_find_value returns the last one added with a name. */
int graph_add_value(graph *g, const char *name);
int graph_find_value(const graph *g, const char *name);
/* Adds a node with room for the given inputs/outputs/attributes (all set to -1 / zero);
 * returns its index or -1 on out of memory. */
int graph_add_node(graph *g, const char *name, const char *op_type, const char *domain,
                   int n_inputs, int n_outputs, int n_attrs);

/* Orders nodes topologically and sets value producers. Fails (INVALID_MODEL) on a cycle,
 * a value produced twice, or an input that nothing produces, naming the node. */
vkml_status graph_sort(graph *g, vkml_error *err);

/* Attribute lookup; NULL when absent. */
const graph_attr *graph_node_attr(const graph_node *n, const char *name);
int64_t graph_attr_int(const graph_node *n, const char *name, int64_t fallback);
float graph_attr_float(const graph_node *n, const char *name, float fallback);
/* NUL-terminated string or fallback. */
const char *graph_attr_string(const graph_node *n, const char *name, const char *fallback);
/* Pointer to the ints and their count; NULL (count 0) when absent. */
const int64_t *graph_attr_ints(const graph_node *n, const char *name, size_t *count);
const float *graph_attr_floats(const graph_node *n, const char *name, size_t *count);

/* Input/output value of a node, NULL for an omitted optional one or out of range. */
graph_value *graph_node_input(graph_value *values, const graph_node *n, int i);
graph_value *graph_node_output(graph_value *values, const graph_node *n, int i);

/* Human-readable node label for messages: "node 'name' (Conv)" or "node #3 (Conv)". */
const char *graph_node_label(const graph *g, int node, char *buf, size_t size);

/* A shape as text, "[1,3,?,224]", into buf. */
const char *graph_shape_string(int rank, const int64_t *dims, char *buf, size_t size);

/* The public view of a value (name, dtype, shape, symbolic dim names); names are shared. */
void graph_value_info(const graph_value *v, vkml_tensor_info *info);

/* Copies the value array (for a session binding its own shapes); free() the result.
 * Names and constant data are shared with the graph. */
graph_value *graph_values_clone(const graph *g);

/* A plan-time rewrite of g (passes/fuse_attention.c, passes/fuse_eltwise.c): f (from
 * graph_create) gets g's values as `values` gives them (shapes inferred) plus n_extra
 * slots after them, every producer -1, room for g's nodes, and g's inputs, outputs and
 * opset (shared with g, which must outlive f). Add the nodes with graph_derive_add. */
vkml_status graph_derive(graph *f, const graph *g, const graph_value *values, int n_extra,
                         vkml_error *err);
/* Appends node n to f (made by graph_derive), its outputs' producer. */
void graph_derive_add(graph *f, const graph_node *n);
