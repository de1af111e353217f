/* Vulkan lowerings of MatMul and Gemm: both run matmul.comp, which takes element strides
 * (Gemm's transposes) and broadcast batch strides (MatMul). */
#include "ops/matmul.h"
#include "vulkan/vk_ops.h"

/* Tile edge and batch rank of shaders/matmul.comp. */
#define MATMUL_TILE 16
#define MATMUL_MAX_BATCH_RANK 4

typedef struct matmul_push {
    uint32_t m, n, k;
    uint32_t a_sm, a_sk, b_sk, b_sn, c_sm, c_sn;
    float alpha, beta;
    uint32_t has_c;
    uint32_t batch_rank;
    uint32_t batch_dims[MATMUL_MAX_BATCH_RANK];
    uint32_t a_batch_strides[MATMUL_MAX_BATCH_RANK];
    uint32_t b_batch_strides[MATMUL_MAX_BATCH_RANK];
} matmul_push;

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

/* Y = node output 0 from inputs 0 and 1 and, c >= 0, the value c. */
static vkml_status record_matmul(gpu_recorder *rec, const matmul_push *pc, const graph_node *node,
                                 int c, int64_t batch, vkml_error *err)
{
    int a = node->inputs[0];
    /* Without C, binding 2 gets A: never read, but every binding needs a buffer. */
    int bind[] = {a, node->inputs[1], c >= 0 ? c : a, node->outputs[0]};
    uint32_t groups[3];
    if (!vk_rec_caps(rec)->prefer_tiled) {
        vk_groups_1d(vk_rec_caps(rec), (uint64_t)pc->m * pc->n, groups);
        groups[2] = vk_u32(batch);
        return vk_rec_kernel(rec, VK_KERNEL_MATMUL_DIRECT, VKML_DTYPE_FLOAT, bind, pc, sizeof(*pc), groups, err);
    }
    matmul_groups(pc->m, pc->n, batch, groups);
    return vk_rec_kernel(rec, VK_KERNEL_MATMUL, VKML_DTYPE_FLOAT, bind, pc, sizeof(*pc), groups, err);
}

VKML_GPU_SUPPORTS_DECL(gpu_matmul_supports)
{
    vkml_error err;
    matmul_params p;
    if (matmul_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (p.batch_rank > MATMUL_MAX_BATCH_RANK)
        return vk_unsupported(why, why_size,
                              "MatMul with %d batch dims: the Vulkan kernel "
                              "handles %d",
                              p.batch_rank, MATMUL_MAX_BATCH_RANK);
    if (!groups_fit(caps, p.m, p.n, p.batch_count, why, why_size))
        return false;
    return vk_check_tensors(values, node, caps, false, why, why_size);
}

VKML_GPU_SUPPORTS_DECL(gpu_gemm_supports)
{
    vkml_error err;
    gemm_params p;
    if (gemm_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    if (!groups_fit(caps, p.m, p.n, 1, why, why_size))
        return false;
    return vk_check_tensors(values, node, caps, false, why, why_size);
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
        .a_sm = vk_u32(p.k),
        .a_sk = 1,
        .b_sk = vk_u32(p.n),
        .b_sn = 1,
        .alpha = 1.0f,
        .batch_rank = (uint32_t)p.batch_rank,
    };
    for (int d = 0; d < p.batch_rank; d++) {
        pc.batch_dims[d] = vk_u32(p.batch_dims[d]);
        pc.a_batch_strides[d] = vk_u32(p.a_batch_strides[d]);
        pc.b_batch_strides[d] = vk_u32(p.b_batch_strides[d]);
    }
    return record_matmul(rec, &pc, node, -1, p.batch_count, err);
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
    };
    return record_matmul(rec, &pc, node, p.has_c ? node->inputs[2] : -1, 1, err);
}
