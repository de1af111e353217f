#pragma once
/*
 * Kernel choice by measurement for matrix products (MatMul, Gemm, and what records through
 * vk_rec_matmul) and for the convs the GEMM kernels suit (lib/vulkan/ops_conv.c). The first
 * time a device records a product of a shape (dtype, precision fp32-fast or not, m, n, k,
 * batch, which operands run along memory) or a conv of a geometry (dtype, precision,
 * batch, channels, groups, window, bias, weights packed over taps or not), every candidate
 * of vk_gemm_tune.c's table for it runs on buffers of that shape:
 * - a product: the kernel chosen by shape, and where gemm_coop.comp takes the dtype each of
 *   its tiles unsplit and its split-K kernel at 2 to 16 slices, else each gemm_tiled.comp
 *   tile and its split-K kernel at 2 to 8 slices;
 * - a conv over taps (weights packed): the kernel chosen by shape, each of gemm_coop.comp
 *   CONV=2's four blocks with K whole, and its two split-K blocks at 2 to 16 slices;
 * - another conv: the kernel chosen by shape, each gemm_tiled.comp tile and its split-K
 *   kernel at 2 to 8 slices, gemm_coop.comp CONV=1's tiles where cooperative matrices take
 *   the dtype, and the direct kernel (conv_window.comp).
 * They run interleaved, VK_GEMM_TUNE_ROUNDS rounds in one command buffer, timed by
 * timestamps, repeated until the GPU's clocks are up (at least VK_GEMM_TUNE_WARM_MS when
 * it may have idled); in the last run, the first round warms the caches and each
 * candidate's least time of the others decides. The device keeps the choice for its life
 * and writes it to a file in the cache folder ($VKML_CACHE_DIR, else
 * $XDG_CACHE_HOME/vkml, else ~/.cache/vkml), one per device, driver and build of the
 * product kernels, which later processes read instead of measuring again.
 *
 * Where: GPUs that prefer tiled kernels and write timestamps (never lavapipe, whose plain
 * kernels have no choice), work of at most VK_GEMM_TUNE_MAX_BYTES of operands.
 * VKML_GEMM_TUNE: 0 keeps the choice by shape; 1 measures on every device that can (tests
 * turn lavapipe's tiled kernels on); the name of a candidate ("coop2", "coop-split4",
 * "tiled3", "taps64-split4", "direct", ...) forces it wherever it can take the work;
 * unset: measure on GPUs. A failed measurement (out of memory, a lost device) leaves the
 * choice by shape and is reported at debug level: it never fails the session.
 */
#include "vulkan/ops_matmul.h"
#include "vulkan/vk_device.h"

#define VK_GEMM_TUNE_ROUNDS 4
/* The runs repeat for WARM_MS, then until steady (MAX_MS at most), when the device measured
 * nothing for IDLE_MS; else twice. */
#define VK_GEMM_TUNE_WARM_MS 500
#define VK_GEMM_TUNE_MAX_MS 1000
#define VK_GEMM_TUNE_IDLE_MS 500
#define VK_GEMM_TUNE_MAX_BYTES (512ull << 20)
/* A candidate replaces the choice by shape only when it ran at least this many percent
 * faster alone. Measured alone, a kernel finds its operands in the L2 cache and runs
 * without its epilogue; in a model its weights come from memory. Smaller gains did not
 * carry over: on the H200 (2026-12-01) convs taken at 3-10% faster alone made ResNet-50
 * fp16 1-3% slower in GPU time (b1 899 us against 876 by shape, b8 1,540 against 1,520);
 * with the margin b8 took 1,522 against 1,522, b1 879 against 877, YOLOv8n-style 901-904
 * against 908. */
#define VK_GEMM_TUNE_MARGIN 15
/* Of n candidates' times us[0 .. n), us[0] the choice by shape's: the index of the one to
 * take (the fastest, if VK_GEMM_TUNE_MARGIN faster than the choice by shape; else 0). */
int vk_gemm_tune_pick(const double *us, int n);

/* *out: the caps to record the product pc with: the device's, forced as its fastest
 * candidate wants. has_c, has_res: whether it binds C and a residual. */
void vk_gemm_tuned_caps(gpu_recorder *rec, const matmul_push *pc, vkml_dtype dtype, int64_t batch,
                        bool has_c, bool has_res, struct gpu_caps *out);
/* The same for conv p (one the GEMM kernels suit), its weights packed over taps or not. */
struct conv_params;
void vk_conv_tuned_caps(gpu_recorder *rec, const struct conv_params *p, vkml_dtype dtype,
                        bool packed, struct gpu_caps *out);
/* The measurements a device made (not read from its file), for tests. */
int vk_gemm_tune_measured(const vk_device *vd);
/* Frees the device's choices (vk_device_close). */
void vk_gemm_tune_free(vk_device *vd);
