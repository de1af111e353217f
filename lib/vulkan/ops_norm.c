/* Vulkan lowerings of the per-line normalisations through norm.comp (statistics, then
 * apply, over a reduce_view), LayerNormalization's Mean/InvStdDev through reduce.comp,
 * and BatchNormalization through batchnorm.comp (two passes; in training mode the batch
 * statistics first, through reduce.comp into the running-statistics outputs). */
#include "ops/norm.h"
#include "vulkan/ops_reduce.h"

static vk_kernel_id norm_kernel(norm_op op)
{
    switch (op) {
    case NORM_SOFTMAX: return VK_KERNEL_NORM_SOFTMAX;
    case NORM_LOG_SOFTMAX: return VK_KERNEL_NORM_LOG_SOFTMAX;
    case NORM_HARDMAX: return VK_KERNEL_NORM_HARDMAX;
    case NORM_LP: return VK_KERNEL_NORM_LP;
    default: return VK_KERNEL_NORM_MEANVAR;
    }
}

static bool has_output(const graph_node *node, int i)
{
    return node->n_outputs > i && node->outputs[i] >= 0;
}

VKML_GPU_SUPPORTS_DECL(gpu_norm_supports)
{
    vkml_error err;
    norm_geom g;
    if (norm_resolve(values, node, &g, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    bool stats = has_output(node, 1) || has_output(node, 2);
    if (stats && values[node->inputs[0]].dtype != VKML_DTYPE_FLOAT)
        return vk_unsupported(why, why_size, "Mean/InvStdDev outputs of a non-float32 input");
    return vk_reduce_view_ok(&g.view, why, why_size) &&
           vk_check_tensors(values, node, caps, true, why, why_size);
}

/* LayerNormalization's optional outputs: mean and 1 / sqrt(var + epsilon) per line. */
static vkml_status record_stats(gpu_recorder *rec, const graph_node *node, const norm_geom *g,
                                vkml_error *err)
{
    reduce_push pc = {.epsilon = g->epsilon};
    VK_SET_REDUCE_VIEW(&pc, &g->view);
    static const vk_kernel_id kernels[] = {VK_KERNEL_REDUCE_MEAN, VK_KERNEL_REDUCE_INVSTD};
    for (int i = 1; i <= 2; i++) {
        if (!has_output(node, i))
            continue;
        int bind[] = {node->inputs[0], node->outputs[i]};
        vkml_status st = vk_rec_lines(rec, kernels[i - 1], VKML_DTYPE_FLOAT, &g->view, bind, &pc,
                                      sizeof(pc), err);
        if (st)
            return st;
    }
    return VKML_OK;
}

/* norm_vec.comp's lines a workgroup, 16-byte vectors a lane at most, lanes a line. */
#define NORM_VEC_LINES 4
#define NORM_VEC_MAX 8
#define NORM_VEC_LANES 32

/* Elements of a 16-byte vector. */
static int64_t vec_elements(vkml_dtype dtype)
{
    return dtype == VKML_DTYPE_FLOAT16 ? 8 : 4;
}

/* Whether norm_vec.comp takes the node (VKML_NO_NORM_VEC=1: never): LayerNormalization or
 * RMSNormalization in float32 or float16 on a GPU with clustered subgroups of 32, over
 * dense lines (line l at l * count) of whole 16-byte vectors, 1 to 8 a lane,
 * scale and bias (if any) indexed by position in the line alone, every binding 16-byte
 * aligned. On the H200 (2026-11-30, 24 LayerNormalizations of [128, 768] in a chain,
 * float16) norm.comp's workgroup a line took 7.0 us a node; norm_vec.comp 4.2 (2026-12-02,
 * docs/performance.md). */
static bool vec_lines(const struct gpu_caps *caps, const norm_geom *g, vkml_dtype dtype)
{
    if (vkml_env_flag("VKML_NO_NORM_VEC") || !caps->prefer_tiled || !caps->subgroup_lanes32 ||
        caps->storage_offset_alignment == 0 || caps->storage_offset_alignment % 16 != 0 ||
        (g->op != NORM_LAYER && g->op != NORM_RMS) ||
        (dtype != VKML_DTYPE_FLOAT && dtype != VKML_DTYPE_FLOAT16))
        return false;
    const reduce_view *v = &g->view;
    int64_t per_vec = vec_elements(dtype);
    if (v->n_red != 1 || v->red_strides[0] != 1 || v->count < per_vec || v->count % per_vec != 0 ||
        v->count > per_vec * NORM_VEC_LANES * NORM_VEC_MAX || v->lines > UINT32_MAX / 4)
        return false;
    int64_t stride = v->count; /* the kept dims, innermost first, dense over whole lines */
    for (int k = v->n_keep - 1; k >= 0; k--) {
        if (v->keep_dims[k] > 1 && v->keep_strides[k] != stride)
            return false;
        stride *= v->keep_dims[k];
    }
    return g->param_count == 0 || (g->param_count == v->count && g->r_div == 1 &&
                                   g->r_mod == v->count && (g->line_mul == 0 || g->line_mod == 1));
}

/* Records the normalization g of x (scale, bias: values or -1) into y. */
static vkml_status record_norm(gpu_recorder *rec, const norm_geom *g, vkml_dtype dtype, int x,
                               int scale, int bias, int y, vkml_error *err)
{
    norm_push pc = {
        .line_div = vk_u32(g->line_div),
        .line_mod = vk_u32(g->line_mod),
        .line_mul = vk_u32(g->line_mul),
        .r_div = vk_u32(g->r_div),
        .r_mod = vk_u32(g->r_mod),
        .has_scale = scale >= 0,
        .has_bias = scale >= 0 && bias >= 0,
        .mvn = g->op == NORM_MVN,
        .rms = g->op == NORM_RMS,
        .lp = (uint32_t)g->p,
        .epsilon = g->epsilon,
    };
    VK_SET_REDUCE_VIEW(&pc, &g->view);
    int bind[] = {x, pc.has_scale ? scale : x, pc.has_bias ? bias : x, y};
    if (vec_lines(vk_rec_caps(rec), g, dtype)) {
        static const vk_kernel_id by_vecs[] = {
            VK_KERNEL_NORM_MEANVAR_VEC1, VK_KERNEL_NORM_MEANVAR_VEC2, VK_KERNEL_NORM_MEANVAR_VEC4,
            VK_KERNEL_NORM_MEANVAR_VEC};
        int64_t per_lane =
            (g->view.count / vec_elements(dtype) + NORM_VEC_LANES - 1) / NORM_VEC_LANES;
        int v = 0;
        while ((1 << v) < per_lane)
            v++;
        uint32_t groups[3];
        uint64_t workgroups = ((uint64_t)g->view.lines + NORM_VEC_LINES - 1) / NORM_VEC_LINES;
        vk_groups_1d(vk_rec_caps(rec), workgroups * VK_WG_SIZE_1D, groups);
        return vk_rec_kernel(rec, by_vecs[v], dtype, bind, &pc, sizeof(pc), groups, err);
    }
    return vk_rec_lines(rec, norm_kernel(g->op), dtype, &g->view, bind, &pc, sizeof(pc), err);
}

vkml_status vk_rec_layer_norm_rows(gpu_recorder *rec, vkml_dtype dtype, int64_t rows, int64_t n,
                                   float epsilon, int x, int scale, int bias, int y,
                                   vkml_error *err)
{
    norm_geom g = {.op = NORM_LAYER,
                   .epsilon = epsilon,
                   .line_div = 1,
                   .line_mod = 1,
                   .r_div = 1,
                   .r_mod = n,
                   .param_count = n};
    reduce_view_init(2, (int64_t[]){rows, n}, 1u << 1, &g.view);
    return record_norm(rec, &g, dtype, x, scale, bias, y, err);
}

VKML_GPU_DECL(gpu_norm)
{
    norm_geom g;
    vkml_status st = norm_resolve(values, node, &g, err);
    if (st != VKML_OK)
        return st;
    int x = node->inputs[0];
    bool has_scale = g.param_count > 0,
         has_bias = has_scale && node->n_inputs > 2 && node->inputs[2] >= 0;
    st = record_norm(rec, &g, values[x].dtype, x, has_scale ? node->inputs[1] : -1,
                     has_bias ? node->inputs[2] : -1, node->outputs[0], err);
    if (st)
        return st;
    return record_stats(rec, node, &g, err);
}

VKML_GPU_SUPPORTS_DECL(gpu_batchnorm_supports)
{
    vkml_error err;
    channel_geom g;
    if (batchnorm_resolve(values, node, &g, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    const channel_params *p = node->params;
    if (p->training) {
        /* The batch statistics go through the running outputs: no scratch buffers. */
        if (!has_output(node, 1) || !has_output(node, 2))
            return vk_unsupported(why, why_size,
                                  "training mode without both running-statistics outputs");
        if (values[node->inputs[0]].dtype == VKML_DTYPE_DOUBLE)
            return vk_unsupported(why, why_size, "training mode in double");
        if (g.outer * g.inner == 0)
            return vk_unsupported(why, why_size, "training mode on an empty batch");
    }
    /* dtypes: the registry's mask (float, float16, double by the device's features) */
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_batchnorm)
{
    channel_geom g;
    vkml_status st = batchnorm_resolve(values, node, &g, err);
    if (st != VKML_OK)
        return st;
    const channel_params *p = node->params;
    batchnorm_push pc = {
        .count = vk_u32(g.outer * g.channels * g.inner),
        .channels = vk_u32(g.channels > 0 ? g.channels : 1),
        .inner = vk_u32(g.inner > 0 ? g.inner : 1),
        .epsilon = p->epsilon,
        .momentum = p->momentum,
    };
    const int *in = node->inputs, *out = node->outputs;
    vkml_dtype t = values[in[0]].dtype;
    int normalize[] = {in[0], in[3], in[4], out[0]};
    int affine[] = {in[1], in[2], out[0]};
    if (p->training) { /* batch mean and variance into outputs 1 and 2, used, then blended */
        const graph_value *x = &values[in[0]];
        reduce_push rp = {0};
        reduce_view view;
        reduce_view_init(x->rank, x->dims, ~(uint32_t)2 & ((1u << x->rank) - 1), &view);
        VK_SET_REDUCE_VIEW(&rp, &view);
        int mean_bind[] = {in[0], out[1]}, var_bind[] = {in[0], out[2]};
        normalize[1] = out[1];
        normalize[2] = out[2];
        if ((st = vk_rec_lines(rec, VK_KERNEL_REDUCE_MEAN, t, &view, mean_bind, &rp, sizeof(rp),
                               err)) ||
            (st =
                 vk_rec_lines(rec, VK_KERNEL_REDUCE_VAR, t, &view, var_bind, &rp, sizeof(rp), err)))
            return st;
    }
    if ((st = vk_rec_kernel_1d(rec, VK_KERNEL_BATCHNORM_NORMALIZE, t, normalize, &pc, sizeof(pc),
                               pc.count, err)) ||
        (st = vk_rec_kernel_1d(rec, VK_KERNEL_BATCHNORM_AFFINE, t, affine, &pc, sizeof(pc),
                               pc.count, err)))
        return st;
    batchnorm_push per_channel = pc; /* one element per channel: the guard's count */
    per_channel.count = pc.channels;
    for (int i = 1; p->training && i <= 2; i++) {
        int running[] = {in[2 + i], out[i]};
        if ((st = vk_rec_kernel_1d(rec, VK_KERNEL_BATCHNORM_RUNNING, t, running, &per_channel,
                                   sizeof(pc), (uint64_t)g.channels, err)))
            return st;
    }
    return VKML_OK;
}
