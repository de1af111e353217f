#pragma once
/*
 * A library node (onednn.h): oneDNN primitives and the memory they run on, bound once to
 * the session's value pointers, run in order. The op files (onednn_conv.c,
 * onednn_matmul.c, onednn_pool.c) build one from a graph node; onednn_session.c owns
 * them.
 */
#include "cpu/onednn/onednn.h"
#include "device/device.h"

#include <oneapi/dnnl/dnnl.h>

#define ONEDNN_MAX_STEPS 10
#define ONEDNN_MAX_ARGS 8
#define ONEDNN_MAX_MEMS 32
#define ONEDNN_MAX_BUFFERS 16
#define ONEDNN_MAX_PACKED 2

/* Packed weights shared between nodes (onednn_weights.c). */
typedef struct onednn_packed onednn_packed;

/* A step vkml runs itself between primitives, on their OpenMP team:
 * - ONEDNN_COPY_RUNS: at each of `pixels` positions, `count` floats from src + p *
 *   src_pitch to dst + p * dst_pitch (channel ranges, onednn_channels.c);
 * - ONEDNN_HALVES_TO_FLOATS, ONEDNN_FLOATS_TO_HALVES: `pixels` elements converted (a
 *   float16 value at a library node's edge; F16C where the CPU has it, which oneDNN's
 *   float16 reorders do not use);
 * - ONEDNN_SILU: `pixels` floats at dst made x * sigmoid(alpha x) in place (a SiLU
 *   epilogue: onednn_act_apart). */
typedef enum onednn_copy_kind {
    ONEDNN_COPY_RUNS,
    ONEDNN_HALVES_TO_FLOATS,
    ONEDNN_FLOATS_TO_HALVES,
    ONEDNN_SILU,
} onednn_copy_kind;

typedef struct onednn_copy {
    onednn_copy_kind kind;
    const void *src;
    void *dst;
    int64_t pixels, src_pitch, dst_pitch, count;
    float alpha;
} onednn_copy;

/* One primitive execution with its arguments, or (prim NULL) a copy. */
typedef struct onednn_step {
    dnnl_primitive_t prim;
    int n_args;
    dnnl_exec_arg_t args[ONEDNN_MAX_ARGS];
    onednn_copy copy;
} onednn_step;

typedef struct onednn_node {
    onednn_step steps[ONEDNN_MAX_STEPS];
    int n_steps;
    dnnl_memory_t mems[ONEDNN_MAX_MEMS]; /* owned */
    int n_mems;
    void *buffers[ONEDNN_MAX_BUFFERS]; /* owned: reorder scratch, scaled constants */
    int n_buffers;
    onednn_packed *packed[ONEDNN_MAX_PACKED]; /* held: its packed weights */
    int n_packed;
    dnnl_memory_t scratch[ONEDNN_MAX_STEPS]; /* its primitives' scratchpads (among mems),
                                              * on no memory until onednn_node_bind_scratch */
    int n_scratch;
    size_t scratch_bytes; /* the largest */
    char impl[64];        /* the main primitive's implementation ("brg:avx512_core") */
    int threads;          /* the OpenMP threads its primitives were made for and run on */
} onednn_node;

/* How a value of rank 3 to 5 ([N, C, spatial...]) lies in memory: as ONNX lays it out,
 * channels-last ([N, spatial..., C]), or in blocks of B channels ([N, C/B, spatial..., B]:
 * B a vector register's floats, onednn_block_channels(), 16 with AVX-512 and 8 with AVX2;
 * only for C a multiple of B, so that it takes the same bytes). Other ranks are
 * always plain. */
typedef enum onednn_layout {
    ONEDNN_PLAIN,
    ONEDNN_NXC,
    ONEDNN_BLOCKED,
} onednn_layout;

/* VKML_CPU_BLOCKS: '0' a session never stores its convs' values in blocks, '1' it does
 * wherever every conv allows and keeps every conv in them, else (unset) 't': on one thread,
 * a direct conv keeping oneDNN's layouts where timing says so (onednn_session.c,
 * blocked_convs; onednn_conv.c, blocked_claim). */
char onednn_blocks_setting(void);
/* Whether a Conv node keeps its values in blocks in a session that stores its convs' values
 * so (onednn_session.c): one group, output channels in whole blocks, input channels too or
 * fewer than a block (an image). */
bool onednn_conv_blocks(const graph_value *values, const graph_node *node);

/* The layouts a library node reads and writes: input i (bit i of layout_inputs) in `in`
 * when i is 0, else in `out` (a residual, added to the output); its outputs in `out` when
 * layout_output. Inputs outside the mask are plain, and so are the outputs otherwise. */
typedef struct onednn_claim {
    uint32_t layout_inputs;
    bool layout_output;
    onednn_layout in, out;
    /* A Conv computed by Winograd's algorithm: oneDNN's kernel for it
     * ("jit_wino_4x3:avx512_core"), "" when computed directly (onednn_conv.c). */
    char winograd[40];
    /* Set by the session before it asks (plan_layouts), read by a Conv's claim: the
     * session stores its convolutions' values in blocks (onednn_session.c). */
    bool blocked_convs;
} onednn_claim;

/* What an op file gets to build a node from. */
typedef struct onednn_build {
    const graph_value *values;
    const graph_node *node;
    const device_value_plan *plans;
    const onednn_layout *stored; /* per value: its layout in memory */
    onednn_claim claim;          /* the node's */
    void *const *ptrs;           /* per value: its memory */
    bool fast_math;
} onednn_build;

/* An op's part: its claim and its builder. build returns VKML_OK with *taken false when
 * the library does not take this node after all (an attribute oneDNN lacks); an error
 * only for a failure it cannot fall back from. */
typedef struct onednn_op {
    /* Whether the library may take the node, and in which layouts (stored: the layouts
     * of the values decided so far, the node's inputs among them). */
    bool (*claim)(const graph_value *values, const graph_node *node, const device_value_plan *plans,
                  const onednn_layout *stored, onednn_claim *claim);
    vkml_status (*build)(const onednn_build *b, onednn_node *n, bool *taken, vkml_error *err);
} onednn_op;

extern const onednn_op onednn_conv_op, onednn_qconv_op, onednn_qlinear_matmul_op, onednn_pool_op,
    onednn_matmul_op, onednn_gemm_op, onednn_norm_op, onednn_binary_op, onednn_channels_op,
    onednn_resize_op, onednn_matmul_integer_op;

/* The process's CPU engine (created once; NULL when oneDNN cannot make one). */
dnnl_engine_t onednn_engine(void);
/* Fails with what oneDNN said (`what`: the call) unless s is success. */
vkml_status onednn_check(dnnl_status_t s, const char *what, vkml_error *err);
const char *onednn_status_name(dnnl_status_t s);

/* Memory descriptor of a float32 tensor [dims] (rank 1..DNNL_MAX_NDIMS) in `layout` (plain
 * for a rank outside 3..5, and for BLOCKED when C is not a multiple of the block). */
void onednn_md(dnnl_memory_desc_t *md, int rank, const int64_t *dims, onednn_layout layout);
/* md (as onednn_md makes it) for a value of dtype float32, float16, int8, uint8 or int32:
 * the same layout in that dtype. Float library nodes compute in float32; float16 values
 * convert in the reorders at their edges. */
void onednn_md_dtype(dnnl_memory_desc_t *md, vkml_dtype dtype);
/* The layout md is in (of the three), or -1. */
int onednn_layout_of(const dnnl_memory_desc_t *md);
/* Whether the two layouts of a [N, C, spatial...] tensor are the same bytes (C or the
 * spatial extent is 1). */
bool onednn_layouts_agree(int rank, const int64_t *dims);

/* A memory object of node n on ptr (owned by n); NULL when out of room or memory. */
dnnl_memory_t onednn_mem(onednn_node *n, const dnnl_memory_desc_t *md, void *ptr);
/* A 64-byte aligned buffer of at least `bytes` (free() it); NULL when out of memory. */
void *onednn_alloc(size_t bytes);
/* onednn_alloc's buffer owned by node n; NULL when out of memory. */
void *onednn_buffer(onednn_node *n, size_t bytes);
/* The least of `runs` runs (after one more) of each of the n primitives of pds alone, in
 * turn, in ms[k]: each on zeros in buffers of its own, on the calling thread's OpenMP team
 * size. False when one cannot be made or run, or n exceeds ONEDNN_TRIAL_MAX. */
#define ONEDNN_TRIAL_MAX 4
bool onednn_time_alone(const const_dnnl_primitive_desc_t *pds, int n, int runs, double *ms);
/* Points node n's scratchpads at buf, `bytes` long and shared by the nodes that run one at
 * a time with n (the nodes of a chunk), or at a buffer of n's own where buf is shorter. */
vkml_status onednn_node_bind_scratch(onednn_node *n, void *buf, size_t bytes, vkml_error *err);
/* Appends a step running prim (owned by n from here on, also on failure). */
vkml_status onednn_add_step(onednn_node *n, dnnl_primitive_t prim, int n_args,
                            const dnnl_exec_arg_t *args, vkml_error *err);
/* Marks the node's implementation text as split in two (the int8 split without VNNI). */
void onednn_note_split(onednn_node *n);
/* A one-entry int32 memory of n holding v (a runtime zero point); NULL out of memory. */
dnnl_memory_t onednn_zero_point_mem(onednn_node *n, int32_t v);
/* Appends a reorder of the int8 values at `from` into uint8 ones 128 higher at `to` (for
 * oneDNN's integer kernels without VNNI: onednn_quant.c). */
vkml_status onednn_shift_step(onednn_node *n, dnnl_memory_t from, const dnnl_memory_desc_t *fmd,
                              dnnl_memory_t to, const dnnl_memory_desc_t *tmd, vkml_error *err);
/* Appends a copy step. */
vkml_status onednn_add_copy_step(onednn_node *n, const onednn_copy *copy, vkml_error *err);
/* Runs a copy step on up to `threads` threads of the OpenMP team the primitives run on. */
void onednn_copy_run(const onednn_copy *copy, int threads);
/* A reorder step from `from` (laid out as fmd) to `to` (tmd). */
vkml_status onednn_reorder_step(onednn_node *n, dnnl_memory_t from, const dnnl_memory_desc_t *fmd,
                                dnnl_memory_t to, const dnnl_memory_desc_t *tmd, vkml_error *err);
/* Creates the primitive of pd (destroyed here) and appends it with args. */
vkml_status onednn_add_pd_step(onednn_node *n, dnnl_primitive_desc_t pd, int n_args,
                               const dnnl_exec_arg_t *args, vkml_error *err);
/* A product's fused LayerNormalization (graph_epilogue.norm) as a step after its
 * primitive, in place on its float32 output, over the rows of its last dim (onednn_norm.c);
 * *added false where oneDNN has no such primitive (the node then goes to the C kernel). */
vkml_status onednn_add_epilogue_norm(const onednn_build *b, onednn_node *n, bool *added,
                                     vkml_error *err);
/* The memory a primitive reads for the tensor at ptr, described by have: ptr itself when
 * `want` is the same layout, else a buffer of n that a reorder step (appended now, so
 * call before the primitive's step) fills from ptr. */
vkml_status onednn_bind_input(onednn_node *n, const dnnl_memory_desc_t *have, const void *ptr,
                              const dnnl_memory_desc_t *want, dnnl_memory_t *mem, vkml_error *err);
/* The memory a primitive writes for the tensor at ptr (described by have): ptr when `want`
 * is the same layout, else a buffer of n; then *pending is the reorder to append after the
 * primitive's step (onednn_bind_output_finish), NULL when none. */
typedef struct onednn_pending {
    dnnl_memory_t from, to;
    onednn_copy convert; /* then, when convert.dst is not NULL */
} onednn_pending;
vkml_status onednn_bind_output(onednn_node *n, const dnnl_memory_desc_t *have, void *ptr,
                               const dnnl_memory_desc_t *want, dnnl_memory_t *mem,
                               onednn_pending *pending, vkml_error *err);
vkml_status onednn_bind_output_finish(onednn_node *n, const onednn_pending *pending,
                                      vkml_error *err);
/* Constant data (described by have) packed into the layout `want`: packed once for every
 * node of the process that packs the same bytes so, held by n; *mem is the packed memory. */
vkml_status onednn_pack(onednn_node *n, const dnnl_memory_desc_t *have, const void *data,
                        const dnnl_memory_desc_t *want, dnnl_memory_t *mem, vkml_error *err);

/* The shared packing behind onednn_pack: the bytes of `data` in `want`, *ref held until
 * onednn_packed_release (NULL with err filled on failure). Thread-safe. */
void *onednn_packed_get(const dnnl_memory_desc_t *have, const void *data,
                        const dnnl_memory_desc_t *want, onednn_packed **ref, vkml_error *err);
void onednn_packed_release(onednn_packed **ref);

/* The node's epilogue (graph_epilogue: activation and residual; not a MatMul's bias or
 * scale, not a pool) as post-ops appended to po, the residual's memory descriptor
 * `residual_md` (NULL when none). The residual is a binary add, or with as_sum a sum
 * post-op: the destination then holds the residual when the primitive runs (the caller
 * copies it there). False when oneDNN has no form of the activation. With act_apart
 * (onednn_act_apart true) the activation is left out: the caller runs it after the
 * primitive (onednn_add_act_step). */
bool onednn_epilogue_post_ops(const graph_epilogue *e, dnnl_post_ops_t po,
                              const dnnl_memory_desc_t *residual_md, bool as_sum, bool act_apart);
/* Whether the epilogue ends in a SiLU, which vkml runs faster itself than oneDNN 2.6's
 * swish post-op (silu_fast.h): a residual, if any, is added before it. */
bool onednn_act_apart(const graph_epilogue *e);
/* Appends the step running e's activation (onednn_act_apart) over the float32 memory mem
 * in place, on the node's threads. */
vkml_status onednn_add_act_step(onednn_node *n, const graph_epilogue *e, dnnl_memory_t mem,
                                vkml_error *err);
/* The post-op index of the residual's binary add in what onednn_epilogue_post_ops appends
 * after `before` post-ops, or -1 when there is none. */
int onednn_epilogue_residual_index(const graph_epilogue *e, int before);
/* The argument id of binary post-op `index`'s second source. */
int onednn_post_op_src1(int index);
/* A primitive attribute and an empty post-op list (both destroyed by
 * onednn_attr_destroy). */
vkml_status onednn_attr_create(dnnl_primitive_attr_t *attr, dnnl_post_ops_t *po, vkml_error *err);
void onednn_attr_destroy(dnnl_primitive_attr_t attr, dnnl_post_ops_t po);
/* Appends a round (half to even) to po and sets po on attr: a requantizing primitive with
 * a destination zero point then rounds before adding it, as ONNX does (oneDNN rounds the
 * sum: with an odd zero point each exact half would go the other way). */
bool onednn_round_before_zero_point(dnnl_primitive_attr_t attr, dnnl_post_ops_t po);
/* Appends the step of pd (consumed, also on failure) from b's node's input 0 to its output 0
 * (out_dims; the input's rank), each in the claim's layout, with the reorders its stored
 * layouts need; pd's implementation becomes n's. */
vkml_status onednn_add_src_dst_step(onednn_node *n, const onednn_build *b, dnnl_primitive_desc_t pd,
                                    const int64_t *out_dims, vkml_error *err);
/* pd's implementation, as oneDNN names it ("brg:avx512_core"); "?" when it says none. */
const char *onednn_impl_name(const_dnnl_primitive_desc_t pd);
/* Records pd's implementation name as n's (the debug log prints it). */
void onednn_note_impl(onednn_node *n, const_dnnl_primitive_desc_t pd);
/* Whether oneDNN chose its reference code (ref:any), several times slower than a jit one. */
bool onednn_pd_is_ref(const_dnnl_primitive_desc_t pd);
/* The pooling primitive descriptor of window w (alg, src and dst as given); *pd NULL when
 * oneDNN has none or its form differs from ONNX's (onednn_pool.c). */
struct window_params;
vkml_status onednn_pool_pd(const struct window_params *w, dnnl_alg_kind_t alg,
                           const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                           dnnl_primitive_desc_t *pd, vkml_error *err);
/* A convolution's dims in oneDNN's terms: x, w ([G, M/G, C/G, k...] when grouped), y (before
 * a fused pool) and the node's output (after it). */
struct conv_params;
void onednn_conv_dims(const struct conv_params *p, int64_t *x, int64_t *w, int64_t *y,
                      int64_t *out);
/* Integer products (onednn_quant.c). The one value every entry of constant value v holds
 * (0 when v is -1, absent), in *out; false when v is not a constant or its entries differ. */
bool onednn_common_value(const graph_value *values, const device_value_plan *plans, int v,
                         int32_t *out);
/* Whether constant int8 or uint8 weights w less their zero points wz (-1: none; element i's
 * is entry quant_vec_index(zv, i)) all fit in int8; then also written to out (not NULL). */
struct quant_vec;
bool onednn_shifted_weights(const graph_value *values, const device_value_plan *plans, int w,
                            int wz, const struct quant_vec *zv, int8_t *out);
/* Splits count int8 weights v as 64 hi + lo, lo in 0 .. 63 (left in v), hi in -2 .. 1. */
void onednn_split_weights(int8_t *v, int8_t *hi, int64_t count);
/* Whether they all lie in -64 .. 64, where no pair of uint8 x int8 products saturates int16
 * (oneDNN's int8 kernels without VNNI: onednn_quant.c). */
bool onednn_weights_pair_safe(const graph_value *values, const device_value_plan *plans, int w,
                              int wz, const struct quant_vec *zv);
/* The requantization scales of a QLinear product as oneDNN's output scales: one per entry
 * of b_scale (1, or one per output channel or column), each qprod_multiplier of the three
 * scales, into `scales` (room for `room`); the count, or 0 when a scale is not a constant,
 * a or y's has more than one entry, b's more than room, or a multiplier is not a positive
 * normal float. */
struct qprod_params;
int onednn_requant_scales(const graph_value *values, const graph_node *node,
                          const device_value_plan *plans, const struct qprod_params *q,
                          float *scales, int64_t room);
/* Creates the primitive descriptor of op_desc with attr on the engine; *pd NULL (and no
 * error) when oneDNN has no implementation of it. */
vkml_status onednn_pd(const void *op_desc, dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd,
                      vkml_error *err);
/* onednn_pd's descriptor by implementation `impl` (as dnnl_query_impl_info_str names it);
 * with impl NULL, each of oneDNN's implementations but its reference code in turn: pds
 * (room for `room`), their count. 0 when there is none. */
int onednn_pd_impls(const void *op_desc, dnnl_primitive_attr_t attr, const char *impl,
                    dnnl_primitive_desc_t *pds, int room);
