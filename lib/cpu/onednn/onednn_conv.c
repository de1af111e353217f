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

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
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
    int residual;         /* value, or -1 */
    bool residual_add;    /* the residual as a binary add post-op, not a sum (see below) */
    const char *winograd; /* oneDNN's kernel for Winograd's algorithm, NULL: directly */
} conv_build;

/* The conv's primitive descriptors on src x_want, dst y_want (the residual in y_want too)
 * with the node's post-ops (none when probing), into pds (room for `room`), *n of them:
 * directly (c->winograd NULL), one; by Winograd's algorithm, c->winograd's kernel, or each
 * of oneDNN's where it is "". *n 0 when oneDNN has none. */
static vkml_status conv_pds(const conv_build *c, bool probe, dnnl_primitive_desc_t *pds, int room,
                            int *n, vkml_error *err)
{
    const graph_node *node = c->node;
    dnnl_dims_t strides, dilates, pad_l, pad_r;
    bool extended;
    *n = 0;
    onednn_window(&c->p.win, strides, dilates, pad_l, pad_r, &extended);
    dnnl_convolution_desc_t cd;
    if (extended || dnnl_dilated_convolution_forward_desc_init(
                        &cd, dnnl_forward_inference,
                        c->winograd ? dnnl_convolution_winograd : dnnl_convolution_direct,
                        &c->x_want, &c->w_any, c->p.has_bias ? &c->bias_md : NULL, &c->y_want,
                        strides, dilates, pad_l, pad_r) != dnnl_success)
        return VKML_OK;
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t po;
    vkml_status st = onednn_attr_create(&attr, &po, err);
    if (st)
        return st;
    if ((probe || onednn_epilogue_post_ops(node->epilogue, po, c->residual >= 0 ? &c->y_want : NULL,
                                           !c->residual_add, onednn_act_apart(node->epilogue))) &&
        dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success) {
        if (c->winograd)
            *n = onednn_pd_impls(&cd, attr, c->winograd[0] ? c->winograd : NULL, pds, room);
        else if (!(st = onednn_pd(&cd, attr, pds, err)))
            *n = pds[0] != NULL;
    }
    onednn_attr_destroy(attr, po);
    return st;
}

/* conv_pds' first descriptor, NULL when there is none. */
static vkml_status conv_pd(const conv_build *c, bool probe, dnnl_primitive_desc_t *pd,
                           vkml_error *err)
{
    int n;
    vkml_status st = conv_pds(c, probe, pd, 1, &n, err);
    if (!n)
        *pd = NULL;
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

/* VKML_WINOGRAD: '0' never, '1' wherever oneDNN has it, else (unset) by timing. */
static char winograd_setting(void)
{
    const char *setting = getenv("VKML_WINOGRAD");
    return setting && (!strcmp(setting, "0") || !strcmp(setting, "1")) ? setting[0] : 't';
}

/* Whether the conv may run by Winograd's algorithm: 2-D, 3x3, stride and dilation 1, one
 * group, channels in whole blocks (oneDNN 2.6's Winograd kernels, jit_wino_4x3 and
 * jit_fp32_wino_2x3, read and write blocked layouts; they exist for AVX-512 only). Chosen
 * per conv by timing (winograd_chosen); VKML_WINOGRAD=0 keeps every conv direct,
 * VKML_WINOGRAD=1 takes oneDNN's first Winograd kernel wherever it has one. */
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

/* Winograd's kernels timed for a conv (oneDNN 2.6 has two). */
#define WINOGRAD_KERNELS 2

/* oneDNN's primitive descriptors for c by Winograd's algorithm in blocked layouts, by its
 * kernels in its order (kernel "": up to `room`) or the one named, with the node's
 * post-ops or (probe) without: their count. */
static int winograd_pds(const conv_build *c, bool probe, const char *kernel,
                        dnnl_primitive_desc_t *pds, int room)
{
    conv_build w = *c;
    w.winograd = kernel;
    onednn_md(&w.x_want, w.rank, w.xd, ONEDNN_BLOCKED);
    onednn_md(&w.y_want, w.rank, w.yd, ONEDNN_BLOCKED);
    int n;
    vkml_error ignored;
    conv_pds(&w, probe, pds, kernel[0] ? 1 : room, &n, &ignored);
    return n;
}

/* Winograd's form is kept where it ran alone in at most this share of the direct conv's
 * time, the direct conv in the layouts oneDNN picks (channels-last with AVX-512): its
 * neighbours' reorders into and out of blocks, and its weights and scratchpad (larger
 * than the direct conv's, and read from memory in a model rather than from cache as when
 * timed alone) take part of its lead. Alone, one thread, it took 0.45-0.83 of the direct
 * time on a 2-core AVX-512 EPYC (every 3x3 conv of ResNet-50 and the YOLOv8n-style model),
 * where ResNet-50 ran 9% faster in all; on a 16-core Xeon the two were closer, and with
 * every conv by Winograd's algorithm YOLOv8n-style ran 20% slower at 16 threads. */
#define WINOGRAD_SHARE 0.85
/* The same where the session stores its convs' values in blocks (onednn_session.c): no
 * reorder around it, only its larger weights. */
#define WINOGRAD_SHARE_BLOCKED 0.9

#define CONV_KEY 24
#define CONV_NONE 1e30

/* What timing a conv's forms alone measured, ms (CONV_NONE: no such form): shared by the
 * process's sessions, so that a second stream of a model times nothing. */
typedef struct conv_timing {
    int64_t key[CONV_KEY]; /* geometry and team size (conv_key) */
    double picked;         /* directly, in the layouts oneDNN picks */
    double blocked;        /* directly, in blocks (an image's few channels plain) */
    double winograd;       /* by the fastest of Winograd's kernels that takes its post-ops */
    char kernel[40];       /* that kernel ("jit_wino_4x3:avx512_core"), "" when none */
} conv_timing;

#define CONV_TIMINGS 256
static conv_timing timings[CONV_TIMINGS];
static int n_timings;
static pthread_mutex_t timings_lock = PTHREAD_MUTEX_INITIALIZER;

/* libgomp's (oneDNN's OpenMP runtime): the team size the calling thread starts. */
int omp_get_max_threads(void);

static void conv_key(const conv_build *c, int64_t *key)
{
    const window_params *w = &c->p.win;
    int at = 0;
    key[at++] = c->p.batch;
    key[at++] = c->p.in_channels;
    key[at++] = c->p.out_channels;
    key[at++] = c->p.group;
    key[at++] = w->spatial;
    for (int d = 0; d < 3; d++) {
        bool in = d < w->spatial;
        key[at++] = in ? w->in[d] : 0;
        key[at++] = in ? w->kernel[d] : 0;
        key[at++] = in ? w->strides[d] : 0;
        key[at++] = in ? w->dilations[d] : 0;
        key[at++] = in ? w->pads_begin[d] : 0;
        key[at++] = in ? w->pads_end[d] : 0;
    }
    key[at++] = omp_get_max_threads();
}

/* c's src and dst in the layouts oneDNN picks (format "any"). */
static void any_layouts(conv_build *c)
{
    dnnl_memory_desc_init_by_tag(&c->x_want, c->rank, c->x_want.dims, dnnl_f32,
                                 dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&c->y_want, c->rank, c->y_want.dims, dnnl_f32,
                                 dnnl_format_tag_any);
}

/* c's direct descriptor without post-ops, in blocks (blocked) or in the layouts oneDNN
 * picks; NULL where it has none or only its reference code. */
static dnnl_primitive_desc_t direct_probe(const conv_build *c, bool blocked)
{
    conv_build d = *c;
    d.winograd = NULL;
    if (blocked) {
        onednn_md(&d.x_want, c->rank, c->xd,
                  c->p.in_channels % onednn_block_channels() ? ONEDNN_PLAIN : ONEDNN_BLOCKED);
        onednn_md(&d.y_want, c->rank, c->yd, ONEDNN_BLOCKED);
    } else {
        any_layouts(&d);
    }
    dnnl_primitive_desc_t pd = NULL;
    vkml_error ignored;
    if (conv_pd(&d, true, &pd, &ignored) == VKML_OK && pd && onednn_pd_is_ref(pd)) {
        dnnl_primitive_desc_destroy(pd);
        pd = NULL;
    }
    return pd;
}

/* A conv's forms timed alone, on zeros, alternating (onednn_time_alone): directly in the
 * layouts oneDNN picks and in blocks, and by each Winograd kernel where it may take that
 * form (winograd_form); or the process's earlier timing of its geometry on this team
 * size. VKML_LOG=debug prints them. */
static void conv_timed(const conv_build *c, conv_timing *t)
{
    memset(t, 0, sizeof(*t));
    conv_key(c, t->key);
    pthread_mutex_lock(&timings_lock);
    for (int i = 0; i < n_timings; i++)
        if (!memcmp(timings[i].key, t->key, sizeof(t->key))) {
            *t = timings[i];
            pthread_mutex_unlock(&timings_lock);
            return;
        }
    pthread_mutex_unlock(&timings_lock);
    t->picked = t->blocked = t->winograd = CONV_NONE;
    dnnl_primitive_desc_t pds[ONEDNN_TRIAL_MAX], full;
    double *slot[ONEDNN_TRIAL_MAX];
    int n = 0;
    for (int blocked = 0; blocked < 2; blocked++)
        if ((pds[n] = direct_probe(c, blocked)))
            slot[n++] = blocked ? &t->blocked : &t->picked;
    int first = n, k = winograd_pds(c, true, "", pds + n, WINOGRAD_KERNELS);
    for (int i = 0; i < k; i++) { /* those that take the node's post-ops too */
        if (winograd_pds(c, false, onednn_impl_name(pds[first + i]), &full, 1)) {
            dnnl_primitive_desc_destroy(full);
            slot[n] = NULL;
            pds[n++] = pds[first + i];
        } else {
            dnnl_primitive_desc_destroy(pds[first + i]);
        }
    }
    double ms[ONEDNN_TRIAL_MAX];
    if (n && onednn_time_alone((const const_dnnl_primitive_desc_t *)pds, n, 3, ms)) {
        char text[160] = "";
        int at = 0;
        for (int i = 0; i < n; i++) {
            if (slot[i]) {
                *slot[i] = ms[i];
                continue;
            }
            if (ms[i] < t->winograd) {
                t->winograd = ms[i];
                snprintf(t->kernel, sizeof(t->kernel), "%s", onednn_impl_name(pds[i]));
            }
            at += snprintf(text + at, sizeof(text) - (size_t)at, ", %s %.3f ms",
                           onednn_impl_name(pds[i]), ms[i]);
        }
        VKML_LOGD("CPU device: Conv %lld -> %lld at %lldx%lld, kernel %lld, stride %lld, on %lld "
                  "thread(s), alone: directly %.3f ms as oneDNN picks, %.3f ms in blocks%s",
                  (long long)c->p.in_channels, (long long)c->p.out_channels,
                  (long long)c->p.win.in[0], (long long)(c->p.win.spatial > 1 ? c->p.win.in[1] : 1),
                  (long long)c->p.win.kernel[0], (long long)c->p.win.strides[0],
                  (long long)t->key[CONV_KEY - 1], t->picked, t->blocked, text);
    }
    for (int i = 0; i < n; i++)
        dnnl_primitive_desc_destroy(pds[i]);
#ifdef __GLIBC__
    /* the trials' buffers (up to four copies of the weights) back to the system: the
     * session's packed weights come after, and a peak RSS of both is a model's twice */
    malloc_trim(0);
#endif
    pthread_mutex_lock(&timings_lock);
    if (n_timings < CONV_TIMINGS)
        timings[n_timings++] = *t;
    pthread_mutex_unlock(&timings_lock);
}

/* The Winograd kernel the conv (winograd_form) runs by into `kernel` (room bytes), "" for
 * its direct form: the fastest timed alone (conv_timed) where it took at most
 * WINOGRAD_SHARE_BLOCKED (blocked: the session's plan) or WINOGRAD_SHARE of the direct
 * time, or with VKML_WINOGRAD=1 oneDNN's first kernel that takes the node's post-ops. */
static void winograd_chosen(const conv_build *c, bool blocked, char *kernel, size_t room)
{
    kernel[0] = '\0';
    if (winograd_setting() == '1') { /* forced: no timing */
        dnnl_primitive_desc_t full;
        if (winograd_pds(c, false, "", &full, 1)) {
            snprintf(kernel, room, "%s", onednn_impl_name(full));
            dnnl_primitive_desc_destroy(full);
        }
        return;
    }
    conv_timing t;
    conv_timed(c, &t);
    double direct = blocked ? t.blocked : t.picked;
    bool chosen =
        t.kernel[0] && t.winograd <= (blocked ? WINOGRAD_SHARE_BLOCKED : WINOGRAD_SHARE) * direct;
    if (chosen)
        snprintf(kernel, room, "%s", t.kernel);
    if (t.kernel[0])
        VKML_LOGD("CPU device: Conv %lld -> %lld at %lldx%lld%s by Winograd's algorithm %.3f ms "
                  "(%s), directly %.3f ms: %s",
                  (long long)c->p.in_channels, (long long)c->p.out_channels,
                  (long long)c->p.win.in[0], (long long)c->p.win.in[1],
                  blocked ? ", values in blocks," : "", t.winograd, t.kernel, direct,
                  chosen ? "Winograd" : "direct");
}

bool onednn_conv_blocks(const graph_value *values, const graph_node *node)
{
    conv_params p;
    vkml_error ignored;
    int block = onednn_block_channels();
    return !conv_params_parse(values, node, &p, &ignored) && p.group == 1 &&
           p.out_channels % block == 0 && (p.in_channels % block == 0 || p.in_channels < block);
}

/* In the session's blocked plan, a conv that runs directly and not pointwise keeps the
 * layouts oneDNN picks (channels-last) where it took at most this share of its time in
 * blocks, timed alone: its input is reordered out of blocks and its output back, each a
 * few us. oneDNN 2.6's stride-2 3x3 convs on blocks (`jit:avx512_core`) trail its
 * channels-last `brgconv`: 256 -> 512 at 14x14 0.79 ms against 0.60 alone on the Xeon,
 * 0.60 against 0.47 on the AVX-512 EPYC (one thread, 2026-12-01). */
#define PICKED_SHARE_BLOCKED 0.9

/* The layouts oneDNN picks for c's src and dst into the claim; false when it has no
 * descriptor for it. */
static bool picked_layouts(const conv_build *c, onednn_claim *claim)
{
    conv_build any = *c;
    any_layouts(&any);
    dnnl_primitive_desc_t pd = NULL;
    vkml_error ignored;
    if (conv_pd(&any, true, &pd, &ignored) || !pd)
        return false;
    int in = onednn_layout_of(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
    int out = onednn_layout_of(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    dnnl_primitive_desc_destroy(pd);
    if (in >= 0 && out >= 0)
        claim->in = (onednn_layout)in, claim->out = (onednn_layout)out;
    return true;
}

/* The conv's claim in the session's blocked plan (onednn_conv_blocks): its input in blocks
 * (or as stored, fewer channels than a block), its output in blocks, unless it runs
 * directly, not pointwise, and faster as oneDNN picks (PICKED_SHARE_BLOCKED; not with
 * VKML_CPU_BLOCKS=1); false when oneDNN has only its reference code in blocks. */
static bool blocked_claim(conv_build *c, const onednn_layout *stored, onednn_claim *claim)
{
    dnnl_primitive_desc_t pd = direct_probe(c, true);
    if (!pd)
        return false;
    dnnl_primitive_desc_destroy(pd);
    claim->in =
        c->p.in_channels % onednn_block_channels() ? stored[c->node->inputs[0]] : ONEDNN_BLOCKED;
    claim->out = ONEDNN_BLOCKED;
    if (winograd_form(&c->p))
        winograd_chosen(c, true, claim->winograd, sizeof(claim->winograd));
    if (claim->winograd[0] || window_kernel_size(&c->p.win) == 1 ||
        onednn_blocks_setting() == '1') /* forced: every conv in blocks */
        return true;
    conv_timing t;
    conv_timed(c, &t);
    bool picked = t.picked <= PICKED_SHARE_BLOCKED * t.blocked;
    VKML_LOGD("CPU device: Conv %lld -> %lld at %lldx%lld, stride %lld, values in blocks: "
              "directly %.3f ms in blocks, %.3f ms as oneDNN picks: %s",
              (long long)c->p.in_channels, (long long)c->p.out_channels, (long long)c->p.win.in[0],
              (long long)(c->p.win.spatial > 1 ? c->p.win.in[1] : 1),
              (long long)c->p.win.strides[0], t.blocked, t.picked,
              picked ? "as oneDNN picks" : "in blocks");
    onednn_claim as_picked = *claim;
    if (picked && picked_layouts(c, &as_picked))
        *claim = as_picked;
    return true;
}

/* A Conv of constant weights. In the session's blocked plan (claim->blocked_convs) src
 * and dst blocked (blocked_claim); otherwise blocked where it runs by Winograd's
 * algorithm, else in the layouts oneDNN picks for it when it may pick any, if it picks
 * among ours (blocked only where C is a multiple of the block, so that no value grows),
 * else channels-last. */
static bool conv_claim(const graph_value *values, const graph_node *node,
                       const device_value_plan *plans, const onednn_layout *stored,
                       onednn_claim *claim)
{
    bool blocked = claim->blocked_convs;
    const graph_value *x = &values[node->inputs[0]];
    if (x->rank < 3 || x->rank > 5 || node->n_inputs < 2 || node->inputs[1] < 0 ||
        !plans[node->inputs[1]].constant || !conv_dtypes(values, node, plans))
        return false;
    conv_build c = {0};
    if (!conv_setup(values, node, ONEDNN_NXC, ONEDNN_NXC, &c))
        return false;
    *claim = (onednn_claim){.layout_inputs = 1u,
                            .layout_output = true,
                            .in = ONEDNN_NXC,
                            .out = ONEDNN_NXC,
                            .blocked_convs = blocked};
    if (c.residual >= 0)
        claim->layout_inputs |= 1u << node->epilogue->residual;
    if (blocked && onednn_conv_blocks(values, node) && blocked_claim(&c, stored, claim))
        return true;
    onednn_claim picked = *claim;
    if (!picked_layouts(&c, &picked))
        return true;
    if (winograd_form(&c.p))
        winograd_chosen(&c, false, claim->winograd, sizeof(claim->winograd));
    if (claim->winograd[0])
        claim->in = claim->out = ONEDNN_BLOCKED;
    else
        *claim = picked;
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
    /* the claim's Winograd kernel, else another (the claim asked on the session's team, a
     * small node runs on one thread: onednn_session.c), else directly */
    static const char *const any_kernel = "";
    const char *const kernels[] = {b->claim.winograd[0] ? b->claim.winograd : NULL, any_kernel,
                                   NULL};
    vkml_status st = VKML_OK;
    pd = NULL;
    for (int k = kernels[0] ? 0 : 2; !st && !pd && k < 3; k++) {
        c.winograd = kernels[k];
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
