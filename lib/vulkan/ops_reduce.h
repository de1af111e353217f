#pragma once
/* What the Vulkan reductions and normalisations share: the reduce_view in a push block
 * (the VKML_REDUCE_VIEW_PUSH fields of push.h), and the choice of a workgroup per line. */
#include "ops/reduce.h"
#include "vulkan/vk_ops.h"

/* Reduced extent from which a line gets a workgroup (the _rows kernels), and the line
 * count under which it does even on devices without prefer_tiled (few long lines: one
 * invocation each would leave the device idle). */
#define VK_REDUCE_ROWS_MIN_COUNT 64
#define VK_REDUCE_ROWS_FEW_LINES 256
/* Lines of VK_REDUCE_SHORT_MIN_COUNT to VK_REDUCE_SHORT_MAX_COUNT elements on GPUs
 * (prefer_tiled) get 32 lanes each, VK_REDUCE_SHORT_LINES to a workgroup (the _short
 * kernels: Sum, Mean, Max): the global pools of 7x7 maps, which one invocation a line
 * walked serially. On the H200 (2026-11-24) EfficientNet-B0's seven 7x7 pools (1152 and
 * 1280 lines of 49) took 14-16 us of GPU time each before, 4.3-5.5 after (its seventeen
 * pools 167 -> 116 us; the final pool of ResNet-50 15.6 -> 5.3, of MobileNetV2 14.5 ->
 * 4.8). Lines of 196 (14x14) measured slower so (5.5 -> 6.6 us) than on 256 lanes each. */
#define VK_REDUCE_SHORT_MIN_COUNT 8
#define VK_REDUCE_SHORT_MAX_COUNT 128
#define VK_REDUCE_SHORT_LINES 8
/* Softmax, LogSoftmax and the mean/variance normalisations take 32 lanes a line up to this
 * many elements where subgroups combine 32 lanes without shared memory (the _lanes kernels,
 * gpu_caps.subgroup_lanes32; elsewhere up to VK_REDUCE_SHORT_MAX_COUNT, the _short ones),
 * when they are at least VK_NORM_LANES_MIN_LINES (128 workgroups): on the H200
 * (2026-11-30) a BERT-base encoder's 12 Softmaxes over 12 x 128 lines of 128 took 75.5 us
 * of GPU time so against 104.4 on a workgroup a line, but its 24 LayerNormalizations over
 * 128 lines of 768 (16 workgroups) 585.9 against 190.7. */
#define VK_NORM_LANES_MAX_COUNT 2048
#define VK_NORM_LANES_MIN_LINES 1024

/* Copies a reduce_view into a push block with the VKML_REDUCE_VIEW_PUSH fields. */
#define VK_SET_REDUCE_VIEW(pc, v)                                                                  \
    do {                                                                                           \
        (pc)->lines = vk_u32((v)->lines);                                                          \
        (pc)->count = vk_u32((v)->count);                                                          \
        (pc)->n_keep = (uint32_t)(v)->n_keep;                                                      \
        (pc)->n_red = (uint32_t)(v)->n_red;                                                        \
        for (int g_ = 0; g_ < REDUCE_MAX_GROUPS; g_++) {                                           \
            (pc)->keep_dims[g_] = vk_u32((v)->keep_dims[g_]);                                      \
            (pc)->keep_strides[g_] = vk_u32((v)->keep_strides[g_]);                                \
            (pc)->red_dims[g_] = vk_u32((v)->red_dims[g_]);                                        \
            (pc)->red_strides[g_] = vk_u32((v)->red_strides[g_]);                                  \
        }                                                                                          \
    } while (0)

/* Whether a view's lines get a workgroup each on this device. */
static inline bool vk_reduce_rows(const struct gpu_caps *caps, const reduce_view *v)
{
    return v->count >= VK_REDUCE_ROWS_MIN_COUNT &&
           (caps->prefer_tiled || v->lines < VK_REDUCE_ROWS_FEW_LINES);
}

/* Records kernel (or its _rows twin, the next kernel id) over the lines of v. */
vkml_status vk_rec_lines(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype,
                         const reduce_view *v, const int *bind, const void *push,
                         uint32_t push_size, vkml_error *err);

/* Refuses views the kernels do not cover: empty lines or no lines. */
bool vk_reduce_view_ok(const reduce_view *v, char *why, size_t why_size);
