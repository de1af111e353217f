/* Vulkan lowerings of MatMul and Gemm: float32 and float16 on GPUs run gemm_tiled.comp, others
 * matmul.comp, CPU implementations matmul_direct.comp; all take element strides (Gemm's
 * transposes), broadcast batch strides (MatMul) and the fused epilogue. */
#include "vulkan/ops_matmul.h"
#include "ops/epilogue.h"
#include "ops/matmul.h"
#include "vulkan/vk_gemm_tune.h"

static void matmul_groups(int64_t m, int64_t n, int64_t batch, uint32_t groups[3])
{
    groups[0] = vk_u32((n + MATMUL_TILE - 1) / MATMUL_TILE);
    groups[1] = vk_u32((m + MATMUL_TILE - 1) / MATMUL_TILE);
    groups[2] = vk_u32(batch);
}

static bool groups_fit(const struct gpu_caps *caps, int64_t m, int64_t n, int64_t batch, char *why,
                       size_t why_size)
{
    uint32_t g[3];
    matmul_groups(m, n, batch, g);
    for (int i = 0; i < 3; i++) {
        if (g[i] > caps->max_workgroup_count[i])
            return vk_unsupported(why, why_size,
                                  "matrix product of %lld x %lld x %lld batches "
                                  "exceeds the device's workgroup counts",
                                  (long long)m, (long long)n, (long long)batch);
    }
    return true;
}

/* Columns up to which a product of B [K, N] takes gemv.comp's NARROW form (8 columns a
 * workgroup, 32 slices of K) rather than 32 columns and 8 slices: mnist-8's [1,256] x
 * [256,10] 6.3 -> 4.1 us on the H200 (2026-11-24), two workgroups of 8 serial steps
 * instead of one of 32. */
#define GEMV_NARROW_MAX_N 16

bool vk_gemv_pick(const struct gpu_caps *caps, const matmul_push *pc, bool floats, int64_t batch,
                  vk_kernel_id *kernel, uint32_t groups[3])
{
    if (!floats || !caps->prefer_tiled || caps->gemm_force != 0 || caps->splitk_force != 0 ||
        caps->coop_force > 0)
        return false;
    bool k_contig = pc->b_sk == 1, rows = k_contig && pc->m > 1;
    if (pc->m > (k_contig ? VK_GEMV_ROWS : VK_GEMV_MAX_ROWS))
        return false;
    bool narrow = !k_contig && pc->n <= GEMV_NARROW_MAX_N;
    /* the COLS of gemv.comp's three forms */
    int64_t cols = k_contig ? 4 : narrow ? 8 : 32, gx = ((int64_t)pc->n + cols - 1) / cols;
    int64_t gy = rows ? 1 : (int64_t)pc->m;
    if (gx > caps->max_workgroup_count[0] || gy > caps->max_workgroup_count[1] ||
        batch > caps->max_workgroup_count[2])
        return false;
    *kernel = rows       ? VK_KERNEL_GEMV_K_CONTIG_ROWS
              : k_contig ? VK_KERNEL_GEMV_K_CONTIG
              : narrow   ? VK_KERNEL_GEMV_NARROW
                         : VK_KERNEL_GEMV;
    groups[0] = (uint32_t)gx;
    groups[1] = (uint32_t)gy;
    groups[2] = (uint32_t)batch;
    return true;
}

vkml_status vk_rec_matmul(gpu_recorder *rec, const matmul_push *pc, vkml_dtype dtype, int a, int b,
                          int c, int res, int y, int64_t batch, vk_row_norm *norm, vkml_error *err)
{
    struct gpu_caps caps;
    vk_gemm_tuned_caps(rec, pc, dtype, batch, c >= 0, res >= 0, &caps);
    return vk_rec_matmul_as(rec, &caps, pc, dtype, a, b, c, res, y, batch, norm, err);
}

vkml_status vk_rec_matmul_as(gpu_recorder *rec, const struct gpu_caps *caps, const matmul_push *pc,
                             vkml_dtype dtype, int a, int b, int c, int res, int y, int64_t batch,
                             vk_row_norm *norm, vkml_error *err)
{
    /* Without C or a residual, bindings 2 and 3 get A: never read, but every binding needs
     * a buffer. */
    int bind[] = {a, b, c >= 0 ? c : a, res >= 0 ? res : a, y};
    uint32_t groups[3];
    vk_kernel_id tiled;
    vk_gemm_split split;
    bool floats = dtype == VKML_DTYPE_FLOAT || dtype == VKML_DTYPE_FLOAT16;
    if (vk_gemm_pick_cm2(caps, pc, dtype, batch, &tiled, groups))
        return vk_rec_kernel_epilogue(rec, tiled, dtype, bind, pc, sizeof(*pc), groups, &pc->epi,
                                      err);
    /* split-K's first pass on the coop kernel: when a test forces the coop kernel, or by
     * shape for the products gemm_coop.comp takes (they always run split: vk_gemm_pick_split) */
    bool coop =
        floats && vk_gemm_coop_takes(caps, dtype, vk_rec_fast_math(rec)) && caps->coop_force > 0;
    if (floats && caps->coop_force == 0 && caps->splitk_force == 0 &&
        vk_gemm_pick_coop(caps, false, dtype, vk_rec_fast_math(rec), pc->m, pc->n, pc->k, batch,
                          &tiled, groups))
        coop = true;
    if (vk_gemv_pick(caps, pc, floats, batch, &tiled, groups))
        return vk_rec_kernel_epilogue(rec, tiled, dtype, bind, pc, sizeof(*pc), groups, &pc->epi,
                                      err);
    if (floats && vk_gemm_pick_split(caps, false, coop, pc->m, pc->n, pc->k, batch, &split))
        return vk_rec_gemm_split(rec, &split, dtype, bind, pc, sizeof(*pc), &pc->epi, norm, err);
    if (caps->prefer_tiled && caps->gemm_force >= 0 && floats &&
        (vk_gemm_pick_coop(caps, false, dtype, vk_rec_fast_math(rec), pc->m, pc->n, pc->k, batch,
                           &tiled, groups) ||
         vk_gemm_pick(caps, false, pc->m, pc->n, batch, &tiled, groups)))
        return vk_rec_kernel_epilogue(rec, tiled, dtype, bind, pc, sizeof(*pc), groups, &pc->epi,
                                      err);
    if (!caps->prefer_tiled) {
        vk_groups_1d(caps, (uint64_t)pc->m * pc->n, groups);
        groups[2] = vk_u32(batch);
        return vk_rec_kernel_epilogue(rec, VK_KERNEL_MATMUL_DIRECT, dtype, bind, pc, sizeof(*pc),
                                      groups, &pc->epi, err);
    }
    matmul_groups(pc->m, pc->n, batch, groups);
    return vk_rec_kernel_epilogue(rec, VK_KERNEL_MATMUL, dtype, bind, pc, sizeof(*pc), groups,
                                  &pc->epi, err);
}

bool vk_matmul_fits(const struct gpu_caps *caps, int64_t m, int64_t n, int64_t batch, char *why,
                    size_t why_size)
{
    return groups_fit(caps, m, n, batch, why, why_size);
}

static vkml_dtype node_dtype(const graph_value *values, const graph_node *node)
{
    return values[node->inputs[0]].dtype;
}

VKML_GPU_SUPPORTS_DECL(gpu_matmul_supports)
{
    vkml_error err;
    matmul_params p;
    if (matmul_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (caps->max_bindings < VK_RESIDUAL_BINDINGS)
        return vk_unsupported(why, why_size,
                              "MatMul: the kernels bind %d buffers, the device "
                              "allows %u",
                              VK_RESIDUAL_BINDINGS, caps->max_bindings);
    if (p.batch_rank > MATMUL_MAX_BATCH_RANK)
        return vk_unsupported(why, why_size,
                              "MatMul with %d batch dims: the Vulkan kernel "
                              "handles %d",
                              p.batch_rank, MATMUL_MAX_BATCH_RANK);
    if (!groups_fit(caps, p.m, p.n, p.batch_count, why, why_size))
        return false;
    if (node->epilogue && node->epilogue->bias >= 0 && values[node->inputs[1]].rank < 2)
        return vk_unsupported(why, why_size,
                              "MatMul with a fused bias and a 1-D B: the "
                              "kernels add the bias along B's columns");
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_SUPPORTS_DECL(gpu_gemm_supports)
{
    vkml_error err;
    gemm_params p;
    if (gemm_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (caps->max_bindings < VK_RESIDUAL_BINDINGS)
        return vk_unsupported(why, why_size,
                              "Gemm: the kernels bind %d buffers, the device "
                              "allows %u",
                              VK_RESIDUAL_BINDINGS, caps->max_bindings);
    if (!groups_fit(caps, p.m, p.n, 1, why, why_size))
        return false;
    bool is_int = !(DT_FLOATS & (1u << node_dtype(values, node)));
    if (is_int && (p.alpha != 1.0f || (p.has_c && p.beta != 1.0f && p.beta != 0.0f)))
        return vk_unsupported(why, why_size,
                              "integer Gemm with alpha %g, beta %g: the Vulkan kernel takes 1",
                              (double)p.alpha, (double)p.beta);
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

/* Whether the batch is A's alone (B shared by every batch) and A is dense, so that the
 * batches are consecutive rows of one [batch*m, k] matrix (Y is dense [batch, m, n]). */
static bool batch_folds_into_rows(const matmul_params *p)
{
    /* A's rows dense (its strides matter only along dims of more than one element) */
    if (p->batch_count <= 1 || (p->m > 1 && p->a_sm != p->k) || (p->k > 1 && p->a_sk != 1))
        return false;
    int64_t dense = p->m * p->k;
    for (int d = p->batch_rank - 1; d >= 0; d--) {
        if (p->batch_dims[d] == 1)
            continue;
        if (p->b_batch_strides[d] != 0 || p->a_batch_strides[d] != dense)
            return false;
        dense *= p->batch_dims[d];
    }
    return p->m * p->batch_count <= UINT32_MAX;
}

/* The node's fused LayerNormalization (graph_epilogue.norm), if any: for the product's
 * recording (which applies it in split-K's second pass where it fits). */
static vk_row_norm row_norm_of(const graph_node *node)
{
    const graph_epilogue *e = node->epilogue;
    return (vk_row_norm){.scale = e && e->norm ? op_epilogue_input(node, e->norm_scale) : -1,
                         .bias = e && e->norm ? op_epilogue_input(node, e->norm_bias) : -1,
                         .epsilon = e ? e->norm_epsilon : 0.0f};
}

/* The normalization the product's recording left: over Y's rows in place. */
static vkml_status record_norm_after(gpu_recorder *rec, const graph_value *values,
                                     const graph_node *node, const vk_row_norm *norm,
                                     vkml_error *err)
{
    if (norm->scale < 0 || norm->fused)
        return VKML_OK;
    const graph_value *y = &values[node->outputs[0]];
    int64_t n = y->dims[y->rank - 1];
    int64_t rows = (int64_t)vkml_tensor_element_count(y->rank, y->dims) / n;
    return vk_rec_layer_norm_rows(rec, y->dtype, rows, n, norm->epsilon, node->outputs[0],
                                  norm->scale, norm->bias, node->outputs[0], err);
}

VKML_GPU_DECL(gpu_matmul)
{
    matmul_params p;
    vkml_status st = matmul_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    matmul_push pc = {
        .m = vk_u32(p.m),
        .n = vk_u32(p.n),
        .k = vk_u32(p.k),
        /* dense, or an operand read through an absorbed permutation (graph_epilogue.view) */
        .a_sm = vk_u32(p.a_sm),
        .a_sk = vk_u32(p.a_sk),
        .b_sk = vk_u32(p.b_sk),
        .b_sn = vk_u32(p.b_sn),
        /* the scale of absorbed input Muls (graph_epilogue.scale) */
        .alpha = node->epilogue && node->epilogue->scaled ? node->epilogue->scale : 1.0f,
        .batch_rank = (uint32_t)p.batch_rank,
        .epi = vk_epilogue_of(node),
    };
    /* A fused bias is C broadcast along the rows: Y = A B + 1 * C[col]. */
    int bias =
        node->epilogue && node->epilogue->bias >= 0 ? node->inputs[node->epilogue->bias] : -1;
    if (bias >= 0) {
        pc.has_c = 1;
        pc.beta = 1.0f;
        pc.c_sn = 1;
    }
    int64_t batch_count = p.batch_count;
    if (batch_folds_into_rows(&p)) {
        /* [.., m, k] x [k, n]: one product of batch*m rows (a [128,1,768] x [768,2304]
         * projection ran 128 tiles of one useful row each: 25 ms instead of 0.3 on the
         * H200). */
        pc.m = vk_u32(p.m * p.batch_count);
        pc.batch_rank = 0;
        batch_count = 1;
    } else {
        for (int d = 0; d < p.batch_rank; d++) {
            pc.batch_dims[d] = vk_u32(p.batch_dims[d]);
            pc.a_batch_strides[d] = vk_u32(p.a_batch_strides[d]);
            pc.b_batch_strides[d] = vk_u32(p.b_batch_strides[d]);
        }
    }
    vk_row_norm norm = row_norm_of(node);
    st = vk_rec_matmul(rec, &pc, node_dtype(values, node), node->inputs[0], node->inputs[1], bias,
                       vk_epilogue_binding(node, -1), node->outputs[0], batch_count,
                       norm.scale >= 0 ? &norm : NULL, err);
    return st ? st : record_norm_after(rec, values, node, &norm, err);
}

VKML_GPU_DECL(gpu_gemm)
{
    gemm_params p;
    vkml_status st = gemm_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    matmul_push pc = {
        .m = vk_u32(p.m),
        .n = vk_u32(p.n),
        .k = vk_u32(p.k),
        /* A is stored [m, k], or [k, m] with transA; B [k, n], or [n, k] with transB. */
        .a_sm = p.trans_a ? 1 : vk_u32(p.k),
        .a_sk = p.trans_a ? vk_u32(p.m) : 1,
        .b_sk = p.trans_b ? 1 : vk_u32(p.n),
        .b_sn = p.trans_b ? vk_u32(p.k) : 1,
        .c_sm = vk_u32(p.c_stride_m),
        .c_sn = vk_u32(p.c_stride_n),
        .alpha = p.alpha,
        .beta = p.beta,
        .has_c = p.has_c,
        .epi = vk_epilogue_of(node),
    };
    /* An integer C times beta 0 (the only other beta supports lets through) drops out. */
    bool is_int = !(DT_FLOATS & (1u << node_dtype(values, node)));
    if (is_int && p.beta == 0.0f)
        pc.has_c = 0;
    vk_row_norm norm = row_norm_of(node);
    st = vk_rec_matmul(rec, &pc, node_dtype(values, node), node->inputs[0], node->inputs[1],
                       pc.has_c ? node->inputs[2] : -1, vk_epilogue_binding(node, -1),
                       node->outputs[0], 1, norm.scale >= 0 ? &norm : NULL, err);
    return st ? st : record_norm_after(rec, values, node, &norm, err);
}
