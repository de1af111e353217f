#pragma once
/*
 * The dynamic tail's heavy nodes on the session's GPU (plan/tail.h). A Conv, ConvTranspose,
 * Gemm or MatMul of the tail whose weights are constants and whose rows are independent
 * (every input that is not a constant, and every output, has the run's extent N as its
 * first dim: the rois of an R-CNN's box, mask and keypoint heads) runs as a session of a
 * one-node model on the plan's first device, planned for N rounded up to a power of two
 * (so that a stream of varying N plans a few sessions per node, not one per N); the rows
 * past N are padding, computed and dropped. Each such session is kept with the tail for
 * its later runs; its weights are the model's bytes, uploaded once per device and shared
 * by the node's sessions (vulkan/vk_consts.h).
 *
 * Which devices and nodes (VKML_TAIL_GPU in the environment): unset, a first device that
 * is a GPU (not a Vulkan device on the CPU, slower there than the CPU device's kernels)
 * and nodes of at least TAIL_GPU_MIN_MACS multiply-adds; "1": any Vulkan device, every
 * such node (tests); "0": none.
 *
 * Thread safety: as the tail's (one run of a plan at a time).
 */
#include "plan/plan.h"

/* Multiply-adds from which a node is worth a trip to the GPU and back (unforced): about
 * 0.1 ms of the host's library kernels, several times the round trip on a GPU. */
#define TAIL_GPU_MIN_MACS (4 * 1000 * 1000)

typedef struct tail_gpu tail_gpu;

/* NULL when the plan's first device takes none of the tail (no GPU, VKML_TAIL_GPU=0) or
 * out of memory. */
tail_gpu *tail_gpu_create(const plan_target *target, const graph *g);
void tail_gpu_destroy(tail_gpu **tg);
/* Runs node `index` of g on the GPU where it takes it, from in[] (one pointer per input)
 * into out[] (sized for this run's shapes, `values`); *ran false (and nothing done) when it
 * does not, for the host to run it. */
vkml_status tail_gpu_run(tail_gpu *tg, const graph *g, const graph_value *values, int index,
                         const void *const *in, void *const *out, bool *ran, vkml_error *err);
