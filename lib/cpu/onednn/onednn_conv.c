/* Conv through oneDNN: float32 or float16 (computed in float32: this oneDNN has no float16
 * convolution on the CPU), 1 to 3 spatial dims, every group form, constant weights packed
 * once; the bias, the fused activation and residual as post-ops; a fused MaxPool as a
 * second primitive. Computes in the layouts oneDNN picks (conv_claim). */
#include "core/common.h"
#include "cpu/onednn/onednn_geometry.h"
#include "cpu/onednn/onednn_node.h"
#include "ops/conv.h"
#include "ops/epilogue.h"
#include "ops/pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void onednn_conv_dims(const conv_params *p, int64_t *x, int64_t *w, int64_t *y, int64_t *out)
{
    int s = p->win.spatial;
    x[0] = p->batch, x[1] = p->in_channels;
    y[0] = out[0] = p->batch, y[1] = out[1] = p->out_channels;
    int at = 0;
    if (p->group > 1)
        w[at++] = p->group;
    w[at++] = p->out_channels / p->group;
    w[at++] = p->in_channels / p->group;
    for (int d = 0; d < s; d++) {
        x[2 + d] = p->win.in[d];
        y[2 + d] = p->win.out[d];
        out[2 + d] = p->pooled ? p->pool.out[d] : p->win.out[d];
        w[at++] = p->win.kernel[d];
    }
}

typedef struct conv_build {
    const onednn_build *b; /* NULL when probing */
    const graph_node *node;
    conv_params p;
    int rank;
    int64_t xd[VKML_MAX_RANK], wd[VKML_MAX_RANK + 1], yd[VKML_MAX_RANK], od[VKML_MAX_RANK];
    dnnl_memory_desc_t x_want, y_want, w_user, w_any, bias_md;
    int residual;      /* value, or -1 */
    bool residual_add; /* the residual as a binary add post-op, not a sum (see below) */
    bool winograd;     /* by Winograd's algorithm, not directly (winograd_form) */
} conv_build;

/* The conv's primitive descriptor on src x_want, dst y_want (the residual in y_want too)
 * with the node's post-ops (none when probing); NULL when oneDNN has none. */
static vkml_status conv_pd(conv_build *c, bool probe, dnnl_primitive_desc_t *pd, vkml_error *err)
{
    const graph_node *node = c->node;
    dnnl_dims_t strides, dilates, pad_l, pad_r;
    bool extended;
    onednn_window(&c->p.win, strides, dilates, pad_l, pad_r, &extended);
    dnnl_convolution_desc_t cd;
    if (extended || dnnl_dilated_convolution_forward_desc_init(
                        &cd, dnnl_forward_inference,
                        c->winograd ? dnnl_convolution_winograd : dnnl_convolution_direct,
                        &c->x_want, &c->w_any, c->p.has_bias ? &c->bias_md : NULL, &c->y_want,
                        strides, dilates, pad_l, pad_r) != dnnl_success) {
        *pd = NULL;
        return VKML_OK;
    }
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t po;
    vkml_status made = onednn_attr_create(&attr, &po, err);
    if (made)
        return made;
    vkml_status st = VKML_OK;
    *pd = NULL;
    if ((probe || onednn_epilogue_post_ops(node->epilogue, po, c->residual >= 0 ? &c->y_want : NULL,
                                           !c->residual_add, onednn_act_apart(node->epilogue))) &&
        dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success)
        st = onednn_pd(&cd, attr, pd, err);
    onednn_attr_destroy(attr, po);
    return st;
}

/* The fused MaxPool: from the conv's channels-last result into the node's output. */
static vkml_status pool_step(conv_build *c, onednn_node *n, dnnl_memory_t conv_out, bool *taken,
                             vkml_error *err)
{
    const onednn_build *b = c->b;
    int y = b->node->outputs[0];
    dnnl_memory_desc_t o_have, o_want;
    onednn_md(&o_have, c->rank, c->od, b->stored[y]);
    onednn_md_dtype(&o_have, b->values[y].dtype);
    onednn_md(&o_want, c->rank, c->od, b->claim.out);
    dnnl_primitive_desc_t pd;
    vkml_status st = onednn_pool_pd(&c->p.pool, dnnl_pooling_max, &c->y_want, &o_want, &pd, err);
    if (st || !pd) {
        *taken = false;
        return st;
    }
    dnnl_memory_t out;
    onednn_pending pending;
    if ((st = onednn_bind_output(n, &o_have, b->ptrs[y], &o_want, &out, &pending, err))) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, conv_out}, {DNNL_ARG_DST, out}};
    if ((st = onednn_add_pd_step(n, pd, 2, args, err)))
        return st;
    return onednn_bind_output_finish(n, &pending, err);
}

/* The conv's geometry and descriptors, with src and dst in these layouts; false when the
 * library does not take its form. */
static bool conv_setup(const graph_value *values, const graph_node *node, onednn_layout in,
                       onednn_layout out, conv_build *c)
{
    vkml_error ignored;
    if (conv_params_parse(values, node, &c->p, &ignored) || c->p.win.spatial > 3)
        return false;
    c->node = node;
    c->rank = 2 + c->p.win.spatial;
    onednn_conv_dims(&c->p, c->xd, c->wd, c->yd, c->od);
    c->residual = op_epilogue_residual(node);
    onednn_md(&c->x_want, c->rank, c->xd, in);
    onednn_md(&c->y_want, c->rank, c->yd, out);
    int wrank = c->rank + (c->p.group > 1);
    onednn_md(&c->w_user, wrank, c->wd, ONEDNN_PLAIN);
    onednn_md_dtype(&c->w_user, values[node->inputs[1]].dtype);
    dnnl_memory_desc_init_by_tag(&c->w_any, wrank, c->w_user.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_dims_t bdims = {c->p.out_channels};
    dnnl_memory_desc_init_by_tag(&c->bias_md, 1, bdims, dnnl_f32, dnnl_a);
    return true;
}

/* Whether every value of the conv is float32, or every one float16 with a constant bias
 * (converted once). */
static bool conv_dtypes(const graph_value *values, const graph_node *node,
                        const device_value_plan *plans)
{
    vkml_dtype t = values[node->inputs[0]].dtype;
    int residual = op_epilogue_residual(node);
    if (t != VKML_DTYPE_FLOAT && t != VKML_DTYPE_FLOAT16)
        return false;
    for (int i = 1; i < node->n_inputs; i++)
        if (node->inputs[i] >= 0 && values[node->inputs[i]].dtype != t)
            return false;
    if (t == VKML_DTYPE_FLOAT16 && node->n_inputs > 2 && node->inputs[2] >= 0 &&
        !plans[node->inputs[2]].constant)
        return false;
    return values[node->outputs[0]].dtype == t && (residual < 0 || values[residual].dtype == t);
}

/* Whether the conv may run by Winograd's algorithm: 2-D, 3x3, stride and dilation 1, one
 * group, channels in whole blocks (oneDNN 2.6's jit_wino kernels read and write blocked
 * layouts; they exist for AVX-512 only). On the AVX-512 EPYC, one thread, they ran every
 * such conv of the benchmark models 1.3-2.4x faster than the direct brgconv (64 -> 64 at
 * 56x56 0.57 ms against 1.07, 512 -> 512 at 7x7 0.90 against 1.17), within 3e-6 of the
 * output's scale. Chosen per conv by timing (winograd_chosen); VKML_WINOGRAD=0 keeps every
 * conv direct, VKML_WINOGRAD=1 takes Winograd's algorithm wherever oneDNN has it. */
/* VKML_WINOGRAD: '0' never, '1' wherever oneDNN has it, else (unset) by timing. */
static char winograd_setting(void)
{
    const char *setting = getenv("VKML_WINOGRAD");
    return setting && (!strcmp(setting, "0") || !strcmp(setting, "1")) ? setting[0] : 't';
}

static bool winograd_form(const conv_params *p)
{
    const window_params *w = &p->win;
    if (w->spatial != 2 || p->group != 1 || winograd_setting() == '0')
        return false;
    for (int d = 0; d < 2; d++)
        if (w->kernel[d] != 3 || w->strides[d] != 1 || w->dilations[d] != 1)
            return false;
    int block = onednn_block_channels();
    return p->in_channels % block == 0 && p->out_channels % block == 0;
}

/* oneDNN's primitive descriptor for c by Winograd's algorithm in blocked layouts, with its
 * post-ops or (probe) without; NULL where it has none but its reference code. */
static dnnl_primitive_desc_t winograd_pd(const conv_build *c, bool probe)
{
    conv_build w = *c;
    w.winograd = true;
    onednn_md(&w.x_want, w.rank, w.xd, ONEDNN_BLOCKED);
    onednn_md(&w.y_want, w.rank, w.yd, ONEDNN_BLOCKED);
    dnnl_primitive_desc_t pd = NULL;
    vkml_error ignored;
    if (conv_pd(&w, probe, &pd, &ignored) || !pd)
        return NULL;
    if (onednn_pd_is_ref(pd)) {
        dnnl_primitive_desc_destroy(pd);
        return NULL;
    }
    return pd;
}

/* Winograd's form is kept where it ran alone in at most this share of the direct conv's
 * time: its neighbours' reorders into and out of blocks, and its weights and scratchpad
 * (larger than the direct conv's, and read from memory in a model rather than from cache
 * as when timed alone) take part of its lead. Alone, one thread, it took 0.45-0.83 of the
 * direct time on a 2-core AVX-512 EPYC (every 3x3 conv of ResNet-50 and the YOLOv8n-style
 * model), where ResNet-50 ran 9% faster in all; on a 16-core Xeon the two were closer, and
 * with every conv by Winograd's algorithm YOLOv8n-style ran 20% slower at 16 threads. */
#define WINOGRAD_SHARE 0.85

/* A timing's outcome for a conv's geometry on a team size: shared by the process's
 * sessions, so that a second stream of a model times nothing. */
typedef struct winograd_choice {
    int64_t key[10];
    bool winograd;
} winograd_choice;

#define WINOGRAD_CHOICES 128
static winograd_choice choices[WINOGRAD_CHOICES];
static int n_choices;
static pthread_mutex_t choices_lock = PTHREAD_MUTEX_INITIALIZER;

/* libgomp's (oneDNN's OpenMP runtime): the team size the calling thread starts. */
int omp_get_max_threads(void);

/* Whether the conv (winograd_form, direct: its direct form's descriptor without post-ops)
 * runs by Winograd's algorithm: oneDNN has it with the node's post-ops, and alone it runs
 * in at most WINOGRAD_SHARE of the direct time (VKML_LOG=debug prints the times). */
static bool winograd_chosen(const conv_build *c, const_dnnl_primitive_desc_t direct)
{
    /* oneDNN's form with the node's post-ops (a cached choice is for the geometry) */
    dnnl_primitive_desc_t full = winograd_pd(c, false);
    if (!full || winograd_setting() == '1') { /* none, or forced: no timing, nothing kept */
        if (full)
            dnnl_primitive_desc_destroy(full);
        return full != NULL;
    }
    dnnl_primitive_desc_destroy(full);
    const window_params *w = &c->p.win;
    int64_t key[10] = {c->p.batch,     c->p.in_channels,     c->p.out_channels, w->in[0],
                       w->in[1],       w->pads_begin[0],     w->pads_begin[1],  w->pads_end[0],
                       w->pads_end[1], omp_get_max_threads()};
    pthread_mutex_lock(&choices_lock);
    for (int i = 0; i < n_choices; i++)
        if (!memcmp(choices[i].key, key, sizeof(key))) {
            bool chosen = choices[i].winograd;
            pthread_mutex_unlock(&choices_lock);
            return chosen;
        }
    pthread_mutex_unlock(&choices_lock);
    dnnl_primitive_desc_t alone = winograd_pd(c, true);
    double ms[2];
    bool chosen =
        alone && onednn_time_alone(alone, direct, 3, ms) && ms[0] <= WINOGRAD_SHARE * ms[1];
    if (alone) {
        VKML_LOGD("CPU device: Conv %lld -> %lld at %lldx%lld on %lld thread(s) by Winograd's "
                  "algorithm %.3f ms, directly %.3f ms: %s",
                  (long long)key[1], (long long)key[2], (long long)key[3], (long long)key[4],
                  (long long)key[9], ms[0], ms[1], chosen ? "Winograd" : "direct");
        dnnl_primitive_desc_destroy(alone);
    }
    pthread_mutex_lock(&choices_lock);
    if (n_choices < WINOGRAD_CHOICES) {
        memcpy(choices[n_choices].key, key, sizeof(key));
        choices[n_choices++].winograd = chosen;
    }
    pthread_mutex_unlock(&choices_lock);
    return chosen;
}

/* A Conv of constant weights: src and dst blocked where it runs by Winograd's algorithm;
 * otherwise in the layouts oneDNN picks for it when it may pick any, if it picks among ours
 * (blocked only where C is a multiple of the block, so that no value grows), else
 * channels-last. */
static bool conv_claim(const graph_value *values, const graph_node *node,
                       const device_value_plan *plans, const onednn_layout *stored,
                       onednn_claim *claim)
{
    (void)stored;
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank < 3 || x->rank > 5 || node->n_inputs < 2 || node->inputs[1] < 0 ||
        !plans[node->inputs[1]].constant || !conv_dtypes(values, node, plans))
        return false;
    conv_build c = {0};
    if (!conv_setup(values, node, ONEDNN_NXC, ONEDNN_NXC, &c))
        return false;
    *claim = (onednn_claim){
        .layout_inputs = 1u, .layout_output = true, .in = ONEDNN_NXC, .out = ONEDNN_NXC};
    if (c.residual >= 0)
        claim->layout_inputs |= 1u << node->epilogue->residual;
    conv_build any = c;
    dnnl_memory_desc_init_by_tag(&any.x_want, c.rank, c.x_want.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&any.y_want, c.rank, c.y_want.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_primitive_desc_t pd = NULL;
    vkml_error ignored;
    if (conv_pd(&any, true, &pd, &ignored) || !pd)
        return true;
    if (winograd_form(&c.p) && winograd_chosen(&c, pd)) {
        dnnl_primitive_desc_destroy(pd);
        claim->in = claim->out = ONEDNN_BLOCKED;
        claim->winograd = true;
        return true;
    }
    int in = onednn_layout_of(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
    int out = onednn_layout_of(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    dnnl_primitive_desc_destroy(pd);
    if (in >= 0 && out >= 0)
        claim->in = (onednn_layout)in, claim->out = (onednn_layout)out;
    return true;
}

/* The bias in float32: the value itself, or a float16 constant converted once. */
static dnnl_memory_t bias_mem(const conv_build *c, onednn_node *n)
{
    const onednn_build *b = c->b;
    int v = c->node->inputs[2];
    if (b->values[v].dtype == VKML_DTYPE_FLOAT)
        return onednn_mem(n, &c->bias_md, b->ptrs[v]);
    const uint16_t *half = b->plans[v].constant;
    float *f = onednn_buffer(n, sizeof(float) * (size_t)c->p.out_channels);
    if (!f)
        return NULL;
    for (int64_t i = 0; i < c->p.out_channels; i++)
        f[i] = vkml_half_to_float(half[i]);
    return onednn_mem(n, &c->bias_md, f);
}

static vkml_status conv_build_node(const onednn_build *b, onednn_node *n, bool *taken,
                                   vkml_error *err)
{
    conv_build c = {.b = b};
    const graph_node *node = b->node;
    *taken = false;
    if (!conv_setup(b->values, node, b->claim.in, b->claim.out, &c))
        return VKML_OK;
    int x = node->inputs[0], y = node->outputs[0];
    dnnl_primitive_desc_t pd;
    c.winograd = b->claim.winograd;
    vkml_status st = conv_pd(&c, false, &pd, err);
    if (!st && !pd && c.winograd) {
        c.winograd = false;
        st = conv_pd(&c, false, &pd, err);
    }
    if (st || !pd)
        return st;
    /* Where oneDNN 2.6 has only its reference code for the conv, other forms of it:
     * - the residual as a binary add: AVX2's jit convolution takes a sum post-op only
     *   first, so Conv + SiLU + Add (YOLOv8's bottlenecks) fell to ref:any, 100-200 ms a
     *   node against 2 (an AVX2 EPYC, 2026-11-29);
     * - an output stored plain (a Concat reads it) written channels-last and reordered
     *   (Inception-v3's 3x3 stride-2 convs: 2 ms against 0.2).
     * When every form is the reference code, the node is left to the C kernel (im2col and
     * oneDNN's sgemm), which is faster. */
    static const struct {
        bool nxc, add; /* output written channels-last; residual as a binary add */
    } forms[] = {{false, true}, {true, false}, {true, true}};
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]) && onednn_pd_is_ref(pd); f++) {
        if ((forms[f].add && c.residual < 0) || (forms[f].nxc && b->claim.out == ONEDNN_NXC))
            continue;
        conv_build alt = {.b = b, .residual_add = forms[f].add};
        dnnl_primitive_desc_t pd2 = NULL;
        vkml_error ignored;
        if (conv_setup(b->values, node, b->claim.in, forms[f].nxc ? ONEDNN_NXC : b->claim.out,
                       &alt) &&
            conv_pd(&alt, false, &pd2, &ignored) == VKML_OK && pd2 && !onednn_pd_is_ref(pd2)) {
            dnnl_primitive_desc_destroy(pd);
            pd = pd2;
            c = alt;
        } else if (pd2) {
            dnnl_primitive_desc_destroy(pd2);
        }
    }
    if (onednn_pd_is_ref(pd)) {
        dnnl_primitive_desc_destroy(pd);
        return VKML_OK; /* not taken */
    }
    onednn_note_impl(n, pd);

    dnnl_memory_t xm, wm, bm = NULL, ym, rm = NULL, conv_out;
    dnnl_memory_desc_t x_have, y_have, r_have;
    onednn_md(&x_have, c.rank, c.xd, b->stored[x]);
    onednn_md(&y_have, c.rank, c.yd, b->stored[y]);
    onednn_md_dtype(&x_have, b->values[x].dtype);
    onednn_md_dtype(&y_have, b->values[y].dtype);
    onednn_pending pending = {0};
    const dnnl_memory_desc_t *w_packed = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    st = onednn_pack(n, &c.w_user, b->plans[node->inputs[1]].constant, w_packed, &wm, err);
    if (!st)
        st = onednn_bind_input(n, &x_have, b->ptrs[x], &c.x_want, &xm, err);
    if (!st && c.residual >= 0) {
        onednn_md(&r_have, c.rank, c.yd, b->stored[c.residual]);
        onednn_md_dtype(&r_have, b->values[c.residual].dtype);
        st = onednn_bind_input(n, &r_have, b->ptrs[c.residual], &c.y_want, &rm, err);
    }
    if (!st && c.p.has_bias && !(bm = bias_mem(&c, n)))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    if (!st && c.p.pooled) { /* the conv's result in a buffer of its own */
        void *buf = onednn_buffer(n, dnnl_memory_desc_get_size(&c.y_want));
        if (!buf || !(conv_out = onednn_mem(n, &c.y_want, buf)))
            st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    } else if (!st) {
        st = onednn_bind_output(n, &y_have, b->ptrs[y], &c.y_want, &ym, &pending, err);
        conv_out = ym;
    }
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_exec_arg_t args[ONEDNN_MAX_ARGS] = {
        {DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, conv_out}};
    int n_args = 3;
    if (bm)
        args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bm};
    if (rm && c.residual_add)
        args[n_args++] = (dnnl_exec_arg_t){
            onednn_post_op_src1(onednn_epilogue_residual_index(node->epilogue, 0)), rm};
    /* The residual as a sum post-op: copied into the destination first. With a binary
     * post-op instead, oneDNN 2.6 runs these convs on jit:avx512_core rather than brgconv
     * (AMD EPYC, 1 thread, 2026-11-29: ResNet-18's 3x3 512 @7x7 with Add+Relu 1.67 ms
     * against 1.17; 256 @14x14 1.15 against 1.04; 64 @56x56 1.31 against 1.16). */
    void *r_at = NULL, *out_at = NULL;
    if (rm) {
        dnnl_memory_get_data_handle(rm, &r_at);
        dnnl_memory_get_data_handle(conv_out, &out_at);
    }
    /* (none where the output lies in the residual's memory: cpu_device.c, in place) */
    if (rm && !c.residual_add && r_at != out_at &&
        (st = onednn_reorder_step(n, rm, &c.y_want, conv_out, &c.y_want, err))) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    if ((st = onednn_add_pd_step(n, pd, n_args, args, err)))
        return st;
    if (onednn_act_apart(node->epilogue) &&
        (st = onednn_add_act_step(n, node->epilogue, conv_out, err)))
        return st;
    *taken = true;
    if (c.p.pooled)
        return pool_step(&c, n, conv_out, taken, err);
    return onednn_bind_output_finish(n, &pending, err);
}

const onednn_op onednn_conv_op = {.claim = conv_claim, .build = conv_build_node};
