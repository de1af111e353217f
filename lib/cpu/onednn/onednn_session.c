/* The library's part of a CPU device session (onednn.h): which nodes it takes, the layout
 * of each value between them, and their runs. */
#include "cpu/onednn/onednn.h"
#include "cpu/onednn/onednn_node.h"
#include "ops/op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libgomp's (oneDNN's OpenMP runtime): the calling thread's team size for what it starts. */
void omp_set_num_threads(int n);

struct onednn_session {
    onednn_node **nodes; /* per graph node; NULL: the C kernel runs it */
    int n_nodes, count;
    dnnl_stream_t *streams; /* per chunk */
    int n_streams;
    int threads;
    void **scratch; /* per chunk: the scratchpad its nodes share (they run one at a time) */
    size_t *scratch_bytes;
};

/* The library's ops: each op id's builder and the forms it takes (docs/ops.md). */
typedef struct library_op {
    int id;
    const onednn_op *op;
    const char *forms;
} library_op;

static const library_op library_ops[] = {
    {OP_ID_Conv, &onednn_conv_op,
     "oneDNN: float32; float16 computed in float32; 1-3 spatial dims, constant weights; "
     "3x3 stride 1 by Winograd's algorithm with AVX-512"},
    {OP_ID_MatMul, &onednn_matmul_op, "oneDNN: float32; float16 computed in float32"},
    {OP_ID_MatMulInteger, &onednn_matmul_integer_op,
     "oneDNN: A int8 or uint8 of one constant zero point; B int8 of one constant zero point, "
     "or constant int8 or uint8 that less its zero points fits in int8; on a CPU without "
     "VNNI only a constant B"},
    {OP_ID_QLinearMatMul, &onednn_qlinear_matmul_op,
     "oneDNN: A int8 or uint8, A's and Y's zero points one constant each; B int8 of one "
     "constant zero point, or constant int8 or uint8 that less its zero points fits in int8; "
     "constant scales, B's per tensor or per column; on a CPU without VNNI only a constant "
     "B"},
    {OP_ID_ConvInteger, &onednn_qconv_op,
     "oneDNN: x int8 or uint8 with one constant zero point, constant int8 or uint8 weights "
     "that less their zero points fit in int8; 1-3 spatial dims"},
    {OP_ID_QLinearConv, &onednn_qconv_op,
     "oneDNN: x int8 or uint8 with one constant zero point, constant int8 or uint8 weights "
     "that less their zero points fit in int8, constant scales (w's per tensor or per "
     "channel); 1-3 spatial dims"},
    {OP_ID_Gemm, &onednn_gemm_op,
     "oneDNN: float32; float16 computed in float32; a beta other than 0 and 1: constant "
     "float32 C only"},
    {OP_ID_MaxPool, &onednn_pool_op,
     "oneDNN: float32, 1-3 spatial dims, without Indices; 2-D over a plain input: C"},
    {OP_ID_AveragePool, &onednn_pool_op,
     "oneDNN: float32, 1-3 spatial dims; 2-D over a plain input: C"},
    {OP_ID_GlobalAveragePool, &onednn_pool_op, "oneDNN: float32, 1-3 spatial dims"},
    {OP_ID_GlobalMaxPool, &onednn_pool_op, "oneDNN: float32, 1-3 spatial dims"},
    {OP_ID_Softmax, &onednn_norm_op, "oneDNN: float32, over trailing dims"},
    {OP_ID_LogSoftmax, &onednn_norm_op, "oneDNN: float32, over trailing dims"},
    {OP_ID_LayerNormalization, &onednn_norm_op,
     "oneDNN: float32, without Mean and InvStdDev outputs"},
    {OP_ID_Concat, &onednn_channels_op,
     "oneDNN: float32 ranges of channels (axis 1), rank 3 to 5, up to 10 inputs"},
    {OP_ID_Split, &onednn_channels_op,
     "oneDNN: float32 ranges of channels (axis 1), rank 3 to 5, up to 10 outputs"},
    {OP_ID_Slice, &onednn_channels_op,
     "oneDNN: float32 ranges of channels (axis 1, step 1), rank 3 to 5"},
    {OP_ID_Resize, &onednn_resize_op,
     "oneDNN: float32 nearest upsampling by whole factors, 1-3 spatial dims"},
    {OP_ID_Add, &onednn_binary_op, "oneDNN: float32, rank up to 5"},
    {OP_ID_Mul, &onednn_binary_op, "oneDNN: float32, rank up to 5"},
    {OP_ID_Sub, &onednn_binary_op, "oneDNN: float32, rank up to 5, A not broadcast"},
    {OP_ID_Div, &onednn_binary_op, "oneDNN: float32, rank up to 5, A not broadcast"},
};

static const library_op *library_op_for(const op_def *op)
{
    for (size_t i = 0; op && i < VKML_ARRAY_SIZE(library_ops); i++)
        if (library_ops[i].id == (int)op->id)
            return &library_ops[i];
    return NULL;
}

static const onednn_op *op_for(const graph_node *node)
{
    const library_op *l = library_op_for(node->op);
    return l ? l->op : NULL;
}

const char *onednn_op_forms(const op_def *op)
{
    const library_op *l = library_op_for(op);
    return l ? l->forms : NULL;
}

bool onednn_enabled(void)
{
    const char *env = getenv("VKML_CPU_KERNELS");
    return !(env && strcmp(env, "reference") == 0) && onednn_engine() != NULL;
}

const char *onednn_version(void)
{
    static char text[32];
    const dnnl_version_t *v = dnnl_version();
    snprintf(text, sizeof(text), "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
    return text;
}

static void node_destroy(onednn_node **np)
{
    onednn_node *n = *np;
    if (!n)
        return;
    for (int i = 0; i < n->n_steps; i++)
        if (n->steps[i].prim)
            dnnl_primitive_destroy(n->steps[i].prim);
    for (int i = 0; i < n->n_mems; i++)
        dnnl_memory_destroy(n->mems[i]);
    /* packed before buffers: a packing is keyed by its data's address, which may be a
     * buffer of the node (shifted weights) that must not be reused while it is listed */
    for (int i = 0; i < n->n_packed; i++)
        onednn_packed_release(&n->packed[i]);
    for (int i = 0; i < n->n_buffers; i++)
        free(n->buffers[i]);
    free(n);
    *np = NULL;
}

void onednn_session_destroy(onednn_session **sp)
{
    onednn_session *s = *sp;
    if (!s)
        return;
    for (int i = 0; s->nodes && i < s->n_nodes; i++)
        node_destroy(&s->nodes[i]);
    for (int c = 0; s->streams && c < s->n_streams; c++)
        if (s->streams[c])
            dnnl_stream_destroy(s->streams[c]);
    for (int c = 0; s->scratch && c < s->n_streams; c++)
        free(s->scratch[c]);
    free(s->scratch);
    free(s->scratch_bytes);
    free(s->streams);
    free(s->nodes);
    free(s);
    *sp = NULL;
}

/* What planning knows of each node and value. */
typedef struct layout_plan {
    bool *on_device;       /* per node: in one of the session's chunks */
    bool *claimed;         /* per node: the library may take it */
    onednn_claim *claims;  /* per node: its layouts */
    bool *aliased;         /* per value: some view or alias shares its memory */
    bool *plain_read;      /* per value: mark_plain_reads */
    onednn_layout *stored; /* per value: the result */
    bool blocked;          /* the convs' values in blocks (blocked_convs) */
} layout_plan;

/* Whether value v may be stored in a library layout: nothing but library nodes on this
 * device read it, each in its layout inputs, and no one else sees its memory (float32, or
 * the int8 and uint8 values between integer convolutions). */
static bool keepable(const device_session_desc *desc, const layout_plan *lp, int v)
{
    const device_value_plan *vp = &desc->value_plans[v];
    const graph_value *val = &desc->values[v];
    if (!vp->used || vp->host_access || vp->constant || vp->shared_host || vp->alias_of >= 0 ||
        lp->aliased[v] || val->rank < 3 || val->rank > 5 ||
        (val->dtype != VKML_DTYPE_FLOAT && val->dtype != VKML_DTYPE_UINT8 &&
         val->dtype != VKML_DTYPE_INT8))
        return false;
    return !lp->plain_read[v];
}

/* Which values some node of the device reads in ONNX's layout: a node of the C kernels, or
 * an input outside a library node's layout inputs. (A node on another device reads a value
 * through the host: host_access. A node in no chunk was folded away: it reads no data.) */
static void mark_plain_reads(const device_session_desc *desc, const layout_plan *lp)
{
    const graph *g = desc->graph;
    memset(lp->plain_read, 0, sizeof(bool) * (size_t)g->n_values);
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *node = &g->nodes[i];
        for (int in = 0; in < node->n_inputs; in++)
            if (node->inputs[in] >= 0 && lp->on_device[i] &&
                (!lp->claimed[i] || in >= 32 || !(lp->claims[i].layout_inputs >> in & 1u)))
                lp->plain_read[node->inputs[in]] = true;
    }
}

char onednn_blocks_setting(void)
{
    const char *setting = getenv("VKML_CPU_BLOCKS");
    return setting && (!strcmp(setting, "0") || !strcmp(setting, "1")) ? setting[0] : 't';
}

/* Whether the session stores its convolutions' values in blocks, rather than in the
 * layouts oneDNN picks per conv (channels-last with AVX-512, blocks around a conv by
 * Winograd's algorithm): where it runs on one thread and every Conv the library may take
 * keeps them so (onednn_conv_blocks; a direct conv may still keep oneDNN's layouts where
 * they are faster: onednn_conv.c, blocked_claim); VKML_CPU_BLOCKS=0 or 1 says otherwise
 * (1: every conv in blocks wherever every conv keeps them so).
 * - One thread: in blocks no value reorders between two convs, nor around one by
 *   Winograd's algorithm. On a 16-core Xeon (2026-12-01, `bench.sh --cpu`, two rounds
 *   each way) ResNet-50 ran 53.0-54.8 ms so against 58.1-58.3, ResNet-18 21.6-24.5 against
 *   24.3-29.8, the YOLOv8n-style model 46.1-48.8 against 54.3-58.4; on the AVX-512 EPYC
 *   the two were within 2%.
 * - A team: oneDNN's 1x1 convs on blocks took 10-35% longer than its channels-last ones
 *   at 16 threads on the Xeon (alone), and the YOLOv8n-style model ran 11.4-11.7 ms in
 *   blocks against 9.2-9.7. Timing each conv's forms alone did not tell the two apart
 *   (it rated the YOLOv8n-style model's convs 4.6 ms in blocks against 5.0), and timing
 *   both whole plans at creation misread ResNet-50 at one thread there (74 ms in blocks
 *   against 57, where the model ran 53.6 against 59.3).
 * - Every conv: blocked around a conv that keeps another layout (MobileNets' 24 channels,
 *   a depthwise conv) MobileNetV2 took 8.0 ms against 4.7 on the AVX-512 EPYC. */
static bool blocked_convs(const device_session_desc *desc, const layout_plan *lp, int threads)
{
    const graph *g = desc->graph;
    char setting = onednn_blocks_setting();
    if (setting == 't' ? threads > 1 : setting == '0')
        return false;
    int convs = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *node = &g->nodes[i];
        if (!lp->on_device[i] || !lp->claimed[i] || node->op->id != OP_ID_Conv)
            continue;
        if (!onednn_conv_blocks(desc->values, node))
            return false;
        convs++;
    }
    return convs > 0;
}

/* Each claimed node's layouts, and each value's, in topological order (a pool reads and
 * writes the layout its input is stored in). */
static void plan_layouts(const device_session_desc *desc, const layout_plan *lp)
{
    const graph *g = desc->graph;
    for (int v = 0; v < g->n_values; v++)
        lp->stored[v] = ONEDNN_PLAIN;
    for (int i = 0; i < g->n_nodes; i++) {
        lp->claims[i].blocked_convs = lp->blocked;
        if (lp->on_device[i] && lp->claimed[i])
            lp->claimed[i] = op_for(&g->nodes[i])
                                 ->claim(desc->values, &g->nodes[i], desc->value_plans, lp->stored,
                                         &lp->claims[i]);
    }
    mark_plain_reads(desc, lp);
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *node = &g->nodes[i];
        if (!lp->on_device[i] || !lp->claimed[i])
            continue;
        lp->claims[i].blocked_convs = lp->blocked;
        lp->claimed[i] =
            op_for(node)->claim(desc->values, node, desc->value_plans, lp->stored, &lp->claims[i]);
        for (int o = 0; o < node->n_outputs; o++) {
            int v = node->outputs[o];
            if (v >= 0 && lp->claimed[i] && lp->claims[i].layout_output && keepable(desc, lp, v))
                lp->stored[v] = lp->claims[i].out;
        }
    }
}

/* Output elements below which a node runs on one thread: a classifier's Gemm, a
 * GlobalAveragePool, a squeeze-and-excitation block's products. On 2 cores (the AVX2 EPYC,
 * 2026-11-30, DNNL_VERBOSE) ResNet-18's classifier took 0.14 ms on one thread and 0.3-0.5 on
 * two, its GlobalAveragePool 0.02 and 0.11-0.25: the team's start costs more than the work. */
#define ONEDNN_ONE_THREAD_OUTPUTS 4096

/* The threads node i's primitives are made for: one for a small output, else the
 * session's. */
static int node_threads(const graph *g, const graph_value *values, int i, int threads)
{
    const graph_node *n = &g->nodes[i];
    size_t out = 0;
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            out +=
                vkml_tensor_element_count(values[n->outputs[o]].rank, values[n->outputs[o]].dims);
    return out < ONEDNN_ONE_THREAD_OUTPUTS ? 1 : threads;
}

/* Node n's steps in order on its threads, then the stream's wait. */
static vkml_status node_run(onednn_node *n, dnnl_stream_t stream, vkml_error *err)
{
    omp_set_num_threads(n->threads);
    for (int i = 0; i < n->n_steps; i++) {
        const onednn_step *step = &n->steps[i];
        if (!step->prim) {
            onednn_copy_run(&step->copy, n->threads);
            continue;
        }
        dnnl_status_t st = dnnl_primitive_execute(step->prim, stream, step->n_args, step->args);
        if (st != dnnl_success)
            return onednn_check(st, "running a primitive", err);
    }
    return onednn_check(dnnl_stream_wait(stream), "waiting for a stream", err);
}

/* Elements a small node (ONEDNN_ONE_THREAD_OUTPUTS) reads, its weights among them, from
 * which its threads are chosen by measurement (choose_threads): a classifier's Gemm or a
 * squeeze-and-excitation block's product reads far more than it writes. */
#define ONEDNN_TRIAL_INPUTS 65536
/* Timed runs of each form, after one run each; the least counts. */
#define ONEDNN_TRIAL_RUNS 5

/* Whether a small node is worth timing on both team sizes: it reads at least
 * ONEDNN_TRIAL_INPUTS elements and writes only buffers of the session's own, a graph
 * output's among them (its runs at creation write outputs nobody has read yet), not one
 * shared with another device or another value. A classifier's Gemm writes the graph's
 * output: on one thread of the two of the AVX-512 EPYC ResNet-50's took 0.35 ms where
 * ONNX Runtime's team took 0.21 (2026-12-01, `vkml run --profile-nodes` against its
 * profiler). */
static bool worth_trial(const device_session_desc *desc, int i)
{
    const graph_node *n = &desc->graph->nodes[i];
    size_t in = 0;
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0)
            in += vkml_tensor_element_count(desc->values[n->inputs[k]].rank,
                                            desc->values[n->inputs[k]].dims);
    for (int o = 0; o < n->n_outputs; o++) {
        const device_value_plan *vp = n->outputs[o] >= 0 ? &desc->value_plans[n->outputs[o]] : NULL;
        if (vp && (vp->shared_host || vp->alias_of >= 0))
            return false;
    }
    return in >= ONEDNN_TRIAL_INPUTS;
}

/* The least of ONEDNN_TRIAL_RUNS runs of each of a and b, alternating, in ms; false when a
 * run fails. */
static bool time_pair(onednn_node *a, onednn_node *b, dnnl_stream_t stream, double ms[2])
{
    onednn_node *nodes[2] = {a, b};
    vkml_error ignored;
    ms[0] = ms[1] = 1e30;
    for (int r = 0; r <= ONEDNN_TRIAL_RUNS; r++)
        for (int k = 0; k < 2; k++) {
            uint64_t start = vkml_now_ns();
            if (node_run(nodes[k], stream, &ignored))
                return false;
            double t = (double)(vkml_now_ns() - start) / 1e6;
            if (r > 0 && t < ms[k])
                ms[k] = t;
        }
    return true;
}

/* A small node built for one thread (node_threads): built again for the session's team
 * and timed both ways (at creation, on the memory it is bound to), the faster kept. On 16
 * cores of an Intel Xeon (2026-11-30, `vkml run --profile`, 16 threads) MobileNetV3-Large's
 * classifier Gemms took 236 and 258 us on one thread, where ONNX Runtime's team took 47 and
 * 50; on 2 cores of an AVX2 EPYC ResNet-18's took 0.14 ms on one thread against 0.3-0.5 on
 * two. */
static void choose_threads(const onednn_build *b, const onednn_op *op, onednn_session *s, int chunk,
                           dnnl_stream_t stream, onednn_node **node)
{
    onednn_node *wide = calloc(1, sizeof(onednn_node));
    if (!wide)
        return; /* keep the one-thread form */
    int threads = s->threads;
    wide->threads = threads;
    omp_set_num_threads(threads);
    bool taken = false;
    vkml_error ignored;
    double ms[2];
    if (op->build(b, wide, &taken, &ignored) == VKML_OK && taken &&
        onednn_node_bind_scratch(wide, s->scratch[chunk], s->scratch_bytes[chunk], &ignored) ==
            VKML_OK &&
        time_pair(*node, wide, stream, ms)) {
        VKML_LOGD("CPU device: %s on %d thread%s (%.3f ms) or 1 (%.3f ms): %d", b->node->op_type,
                  threads, threads == 1 ? "" : "s", ms[1], ms[0], ms[1] < ms[0] ? threads : 1);
        if (ms[1] < ms[0]) {
            onednn_node *narrow = *node;
            *node = wide;
            wide = narrow;
        }
    }
    node_destroy(&wide);
}

static onednn_build build_of(const device_session_desc *desc, void *const *ptrs,
                             const layout_plan *lp, int i)
{
    return (onednn_build){.values = desc->values,
                          .node = &desc->graph->nodes[i],
                          .plans = desc->value_plans,
                          .stored = lp->stored,
                          .claim = lp->claims[i],
                          .ptrs = ptrs,
                          .fast_math = desc->fast_math};
}

/* choose_threads for every small node worth a trial, once the layouts are final. */
static vkml_status trial_threads(const device_session_desc *desc, void *const *ptrs,
                                 const layout_plan *lp, onednn_session *s, vkml_error *err)
{
    dnnl_stream_t stream = NULL;
    for (int c = 0; c < desc->n_chunks; c++)
        for (int k = 0; k < desc->chunks[c].n_nodes; k++) {
            int i = desc->chunks[c].nodes[k];
            if (!s->nodes[i] || s->nodes[i]->threads >= s->threads || !worth_trial(desc, i))
                continue;
            if (!stream && dnnl_stream_create(&stream, onednn_engine(),
                                              dnnl_stream_default_flags) != dnnl_success)
                return onednn_check(dnnl_out_of_memory, "creating a stream", err);
            onednn_build b = build_of(desc, ptrs, lp, i);
            choose_threads(&b, op_for(&desc->graph->nodes[i]), s, c, stream, &s->nodes[i]);
        }
    omp_set_num_threads(s->threads);
    if (stream)
        dnnl_stream_destroy(stream);
    return VKML_OK;
}

static vkml_status build_nodes(const device_session_desc *desc, void *const *ptrs,
                               const layout_plan *lp, onednn_session *s, bool *declined,
                               vkml_error *err)
{
    const graph *g = desc->graph;
    *declined = false;
    for (int i = 0; i < g->n_nodes; i++) {
        if (!lp->on_device[i] || !lp->claimed[i])
            continue;
        onednn_build b = build_of(desc, ptrs, lp, i);
        bool taken = false;
        if (!(s->nodes[i] = calloc(1, sizeof(onednn_node))))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
        s->nodes[i]->threads = node_threads(g, desc->values, i, s->threads);
        omp_set_num_threads(s->nodes[i]->threads); /* oneDNN sizes its kernels' work for this */
        vkml_status st = op_for(&g->nodes[i])->build(&b, s->nodes[i], &taken, err);
        omp_set_num_threads(s->threads);
        if (st)
            return st;
        if (!taken) { /* the C kernel runs it; its values' layouts change */
            node_destroy(&s->nodes[i]);
            lp->claimed[i] = false;
            *declined = true;
            return VKML_OK;
        }
        static const char *const names[] = {"plain", "channels-last", "blocked"};
        VKML_LOGD("CPU device: %s runs on oneDNN (%s; %s in, %s out, output stored %s; %d "
                  "primitive%s with its reorders)",
                  g->nodes[i].op_type, s->nodes[i]->impl, names[lp->claims[i].in],
                  names[lp->claims[i].out], names[lp->stored[g->nodes[i].outputs[0]]],
                  s->nodes[i]->n_steps, s->nodes[i]->n_steps == 1 ? "" : "s");
    }
    return VKML_OK;
}

/* One scratchpad per chunk, as long as the longest its nodes' primitives need, bound to
 * each of them: the nodes of a chunk run one at a time. (A scratchpad a node, Winograd's
 * convolutions above all, keeps to itself can be tens of MiB.) */
static vkml_status bind_scratch(const device_session_desc *desc, onednn_session *s, vkml_error *err)
{
    for (int c = 0; c < desc->n_chunks; c++) {
        const device_chunk_desc *chunk = &desc->chunks[c];
        size_t bytes = 0;
        for (int k = 0; k < chunk->n_nodes; k++) {
            const onednn_node *n = s->nodes[chunk->nodes[k]];
            if (n && n->scratch_bytes > bytes)
                bytes = n->scratch_bytes;
        }
        if (bytes && !(s->scratch[c] = onednn_alloc(bytes)))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "CPU device: out of memory for a scratchpad");
        s->scratch_bytes[c] = bytes;
        for (int k = 0; k < chunk->n_nodes; k++) {
            onednn_node *n = s->nodes[chunk->nodes[k]];
            vkml_status st = n ? onednn_node_bind_scratch(n, s->scratch[c], bytes, err) : VKML_OK;
            if (st)
                return st;
        }
    }
    return VKML_OK;
}

/* The nodes of the session and, for a first plan, those the library may take. */

/* Whether a value the node reads or writes has no elements. Those nodes are left to the C
 * kernels: oneDNN 2.6 divides by zero creating a MatMul over an empty batch ([0, 2, 3, 4]
 * by [1, 4, 3]: SIGFPE), and an empty node has nothing to speed up. */
static bool touches_empty(const graph_value *values, const graph_node *node)
{
    for (int k = 0; k < node->n_inputs + node->n_outputs; k++) {
        int v = k < node->n_inputs ? node->inputs[k] : node->outputs[k - node->n_inputs];
        if (v >= 0 && values[v].rank > 0 &&
            vkml_tensor_element_count(values[v].rank, values[v].dims) == 0)
            return true;
    }
    return false;
}
static void claim_nodes(const device_session_desc *desc, const layout_plan *lp)
{
    const graph *g = desc->graph;
    const device_value_plan *plans = desc->value_plans;
    for (int v = 0; v < g->n_values; v++)
        if (plans[v].used && plans[v].alias_of >= 0)
            lp->aliased[v] = lp->aliased[device_alias_root(plans, g->n_values, v, NULL)] = true;
    for (int c = 0; c < desc->n_chunks; c++)
        for (int k = 0; k < desc->chunks[c].n_nodes; k++)
            lp->on_device[desc->chunks[c].nodes[k]] = true;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *node = &g->nodes[i];
        lp->claimed[i] = lp->on_device[i] && op_for(node) && node->n_outputs >= 1 &&
                         node->outputs[0] >= 0 && !touches_empty(desc->values, node);
    }
}

vkml_status onednn_session_create(const device_session_desc *desc, void *const *ptrs,
                                  onednn_session **out, vkml_error *err)
{
    *out = NULL;
    if (!onednn_enabled())
        return VKML_OK;
    const graph *g = desc->graph;
    size_t nn = (size_t)g->n_nodes + 1, nv = (size_t)g->n_values + 1;
    onednn_session *s = calloc(1, sizeof(*s));
    layout_plan lp = {.on_device = calloc(nn, sizeof(bool)),
                      .claimed = calloc(nn, sizeof(bool)),
                      .claims = calloc(nn, sizeof(onednn_claim)),
                      .aliased = calloc(nv, sizeof(bool)),
                      .plain_read = calloc(nv, sizeof(bool)),
                      .stored = calloc(nv, sizeof(onednn_layout))};
    vkml_status st = VKML_OK;
    if (!s || !lp.on_device || !lp.claimed || !lp.claims || !lp.aliased || !lp.plain_read ||
        !lp.stored || !(s->nodes = calloc(nn, sizeof(onednn_node *))) ||
        !(s->streams = calloc((size_t)desc->n_chunks + 1, sizeof(dnnl_stream_t))) ||
        !(s->scratch = calloc((size_t)desc->n_chunks + 1, sizeof(void *))) ||
        !(s->scratch_bytes = calloc((size_t)desc->n_chunks + 1, sizeof(size_t))))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    if (!st) {
        s->n_nodes = g->n_nodes;
        s->n_streams = desc->n_chunks;
        s->threads = desc->cpu_threads > 0 ? desc->cpu_threads : 1;
        omp_set_num_threads(s->threads); /* oneDNN sizes its kernels' work for this */
        claim_nodes(desc, &lp);
        lp.blocked = blocked_convs(desc, &lp, s->threads);
    }
    /* A node the library declines after all changes its values' layouts: plan again. */
    for (bool declined = true; !st && declined;) {
        for (int i = 0; i < g->n_nodes; i++)
            node_destroy(&s->nodes[i]);
        plan_layouts(desc, &lp);
        st = build_nodes(desc, ptrs, &lp, s, &declined, err);
    }
    if (!st)
        st = bind_scratch(desc, s, err);
    if (!st && s->threads > 1)
        st = trial_threads(desc, ptrs, &lp, s, err);
    for (int c = 0; !st && c < desc->n_chunks; c++)
        st = onednn_check(
            dnnl_stream_create(&s->streams[c], onednn_engine(), dnnl_stream_default_flags),
            "creating a stream", err);
    for (int i = 0; !st && i < g->n_nodes; i++)
        s->count += s->nodes[i] != NULL;
    if (!st)
        VKML_LOGD("CPU device: %d nodes on oneDNN, %d thread%s each", s->count, s->threads,
                  s->threads == 1 ? "" : "s");
    free(lp.on_device);
    free(lp.claimed);
    free(lp.claims);
    free(lp.aliased);
    free(lp.plain_read);
    free(lp.stored);
    if (st) {
        onednn_session_destroy(&s);
        return st;
    }
    *out = s;
    return VKML_OK;
}

bool onednn_session_has(const onednn_session *s, int node)
{
    return s && node >= 0 && node < s->n_nodes && s->nodes[node];
}

int onednn_session_node_count(const onednn_session *s)
{
    return s ? s->count : 0;
}

vkml_status onednn_session_run(onednn_session *s, int chunk, int node, vkml_error *err)
{
    return node_run(s->nodes[node], s->streams[chunk], err);
}
