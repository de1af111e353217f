/* Vulkan lowerings of the per-line normalisations through norm.comp (statistics, then
 * apply, over a reduce_view), LayerNormalization's Mean/InvStdDev through reduce.comp,
 * and BatchNormalization through batchnorm.comp (two passes). */
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
static vkml_status record_stats(gpu_recorder *rec,
                                const graph_node *node, const norm_geom *g, vkml_error *err)
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

VKML_GPU_DECL(gpu_norm)
{
    norm_geom g;
    vkml_status st = norm_resolve(values, node, &g, err);
    if (st != VKML_OK)
        return st;
    norm_push pc = {
        .line_div = vk_u32(g.line_div),
        .line_mod = vk_u32(g.line_mod),
        .line_mul = vk_u32(g.line_mul),
        .r_div = vk_u32(g.r_div),
        .r_mod = vk_u32(g.r_mod),
        .has_scale = g.param_count > 0,
        .has_bias = g.param_count > 0 && node->n_inputs > 2 && node->inputs[2] >= 0,
        .mvn = g.op == NORM_MVN,
        .rms = g.op == NORM_RMS,
        .lp = (uint32_t)g.p,
        .epsilon = g.epsilon,
    };
    VK_SET_REDUCE_VIEW(&pc, &g.view);
    int x = node->inputs[0];
    int bind[] = {x, pc.has_scale ? node->inputs[1] : x, pc.has_bias ? node->inputs[2] : x,
                  node->outputs[0]};
    if ((st = vk_rec_lines(rec, norm_kernel(g.op), values[x].dtype, &g.view, bind, &pc, sizeof(pc),
                           err)))
        return st;
    return record_stats(rec, node, &g, err);
}

VKML_GPU_SUPPORTS_DECL(gpu_batchnorm_supports)
{
    vkml_error err;
    channel_geom g;
    if (batchnorm_resolve(values, node, &g, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
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
    };
    const int *in = node->inputs;
    vkml_dtype t = values[in[0]].dtype;
    int normalize[] = {in[0], in[3], in[4], node->outputs[0]};
    int affine[] = {in[1], in[2], node->outputs[0]};
    st = vk_rec_kernel_1d(rec, VK_KERNEL_BATCHNORM_NORMALIZE, t, normalize, &pc, sizeof(pc),
                          pc.count, err);
    return st ? st
              : vk_rec_kernel_1d(rec, VK_KERNEL_BATCHNORM_AFFINE, t, affine, &pc, sizeof(pc),
                                 pc.count, err);
}
