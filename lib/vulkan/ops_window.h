#pragma once
/* Filling the window geometry of the push blocks (shaders/common/push.h): the 2-D
 * vk_window_push of the implicit-GEMM convs (gemm_tiled.comp, gemm_coop.comp, qmatmul.comp
 * and qmatmul_coop.comp; 1-D windows map to H = 1),
 * and window3_push's of conv_window.comp and pool.comp. */
#include "ops/window.h"
#include "vulkan/vk_ops.h"

/* Fills push.h's vk_window_push from a 1-D or 2-D window; pad_end receives the end pads (h, w). */
void vk_window_push_fill(const window_params *w, vk_window_push *out, uint32_t pad_end[2]);
/* Spatial dims of the window3_push kernels (conv_window.comp, pool.comp). */
#define VK_WINDOW3_SPATIAL 3
/* Fills the geometry of window3_push (1-D to 3-D windows, leading dims of size 1) and
 * returns the output elements: `outer` (batch x channels) times the output's spatial
 * size. */
uint64_t vk_window3_fill(const window_params *w, uint64_t outer, window3_push *pc);
/* Refuses windows of more than 2 spatial dims (the kernels on vk_window_push). */
bool vk_window_supported(const window_params *w, const char *op, char *why, size_t why_size);
