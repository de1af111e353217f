/* Tile choice of gemm_tiled.comp and the fused-epilogue push members (ops_gemm.h). */
#include "vulkan/ops_gemm.h"

/* The numbers of epilogue.glsl's EPI_* are graph_epi_act's. */
_Static_assert(GRAPH_EPI_RELU == 1 && GRAPH_EPI_CLIP == 2 && GRAPH_EPI_SIGMOID == 3 &&
                   GRAPH_EPI_HARD_SIGMOID == 4 && GRAPH_EPI_HARD_SWISH == 5 &&
                   GRAPH_EPI_LEAKY_RELU == 6 && GRAPH_EPI_SILU == 7 && GRAPH_EPI_GELU == 8 &&
                   GRAPH_EPI_GELU_TANH == 9 && GRAPH_EPI_X_HARD_SIGMOID == 10,
               "graph_epi_act must match shaders/common/epilogue.glsl");
_Static_assert(sizeof(vk_epilogue_push) == 16, "four 32-bit push members");
_Static_assert(VK_GEMM_TILES == 4, "gemm_tiles below");
_Static_assert(VK_COOP_TILES == 3, "coop_tiles below");

/* The block tiles of shaders/meson.build's gemm_* rows, largest first. */
static const struct gemm_tile {
    int bm, bn;
    vk_kernel_id matmul, conv;
} gemm_tiles[] = {
    {128, 128, VK_KERNEL_GEMM_128X128, VK_KERNEL_CONV_GEMM_128X128},
    {128, 64, VK_KERNEL_GEMM_128X64, VK_KERNEL_CONV_GEMM_128X64},
    {64, 64, VK_KERNEL_GEMM_64X64, VK_KERNEL_CONV_GEMM_64X64},
    {32, 32, VK_KERNEL_GEMM_32X32, VK_KERNEL_CONV_GEMM_32X32},
};

/* The block tiles of shaders/meson.build's gemm_coop_* rows, largest first. */
static const struct gemm_tile coop_tiles[] = {
    {128, 128, VK_KERNEL_GEMM_COOP_128X128, VK_KERNEL_CONV_GEMM_COOP_128X128},
    {128, 64, VK_KERNEL_GEMM_COOP_128X64, VK_KERNEL_CONV_GEMM_COOP_128X64},
    {64, 64, VK_KERNEL_GEMM_COOP_64X64, VK_KERNEL_CONV_GEMM_COOP_64X64},
};

vk_epilogue_push vk_epilogue_of(const graph_node *node)
{
    vk_epilogue_push e = {0};
    const graph_epilogue *ep = node->epilogue;
    if (!ep)
        return e;
    e.act = (uint32_t)ep->act;
    e.alpha = ep->alpha;
    e.beta = ep->beta;
    if (ep->residual >= 0)
        e.flags = 1u | (ep->residual_first ? 2u : 0u);
    return e;
}

int vk_epilogue_binding(const graph_node *node, int fallback)
{
    const graph_epilogue *ep = node->epilogue;
    if (!ep || ep->residual < 0 || ep->residual >= node->n_inputs || node->inputs[ep->residual] < 0)
        return fallback;
    return node->inputs[ep->residual];
}

/* The first tile of tiles[0 .. n_tiles) (from `forced`, 0-based, when >= 0) that gives
 * enough workgroups without a quarter of it empty, else the last; false when its grid
 * exceeds the device's. */
static bool pick_tile(const struct gpu_caps *caps, const struct gemm_tile *tiles, int n_tiles,
                      int forced, bool conv, int64_t m, int64_t n, int64_t z,
                      vk_kernel_id *kernel, uint32_t groups[3])
{
    for (int t = forced >= 0 ? forced : 0; t < n_tiles; t++) {
        const struct gemm_tile *g = &tiles[t];
        int64_t gx = (n + g->bn - 1) / g->bn, gy = (m + g->bm - 1) / g->bm;
        /* A tile a quarter or more empty (64 output channels in a 128-row tile) wastes
         * that share of its work: take the next smaller one. */
        bool wasteful = gy * g->bm * 4 > m * 5 || gx * g->bn * 4 > n * 5;
        if (forced < 0 && t + 1 < n_tiles && (wasteful || gx * gy * z < VK_GEMM_MIN_GROUPS))
            continue;
        if (gx > caps->max_workgroup_count[0] || gy > caps->max_workgroup_count[1] ||
            z > caps->max_workgroup_count[2])
            return false;
        groups[0] = (uint32_t)gx;
        groups[1] = (uint32_t)gy;
        groups[2] = (uint32_t)z;
        *kernel = conv ? g->conv : g->matmul;
        return true;
    }
    return false;
}

bool vk_gemm_pick(const struct gpu_caps *caps, bool conv, int64_t m, int64_t n, int64_t z,
                  vk_kernel_id *kernel, uint32_t groups[3])
{
    int n_tiles = (int)VKML_ARRAY_SIZE(gemm_tiles);
    int forced = caps->gemm_force > 0 && caps->gemm_force <= n_tiles ? caps->gemm_force - 1 : -1;
    return pick_tile(caps, gemm_tiles, n_tiles, forced, conv, m, n, z, kernel, groups);
}

bool vk_gemm_pick_coop(const struct gpu_caps *caps, bool conv, vkml_dtype dtype, bool fast_math,
                       int64_t m, int64_t n, int64_t k, int64_t z, vk_kernel_id *kernel,
                       uint32_t groups[3])
{
    /* float32 rounded to float16 is not float32: only where the session allows it */
    bool dtype_ok = dtype == VKML_DTYPE_FLOAT16 || (dtype == VKML_DTYPE_FLOAT && fast_math);
    if (!caps->cooperative_matrix || !caps->prefer_tiled || caps->gemm_force != 0 ||
        caps->coop_force < 0 || !dtype_ok)
        return false;
    int n_tiles = (int)VKML_ARRAY_SIZE(coop_tiles);
    int forced = caps->coop_force > 0 && caps->coop_force <= n_tiles ? caps->coop_force - 1 : -1;
    if (forced < 0 && (m * n < VK_COOP_MIN_OUTPUTS || k < VK_COOP_MIN_K))
        return false;
    if (!pick_tile(caps, coop_tiles, n_tiles, forced, conv, m, n, z, kernel, groups))
        return false;
    return vk_kernel_variant(*kernel, (int)dtype) >= 0;
}
