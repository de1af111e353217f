#pragma once
/*
 * The dynamic tail's heavy nodes on the session's GPU (plan/tail.h). A chain of tail nodes
 * whose rows are independent runs as one session of a model of just those nodes on the
 * plan's first device: Conv, ConvTranspose, Gemm and MatMul of constant weights, and
 * between them elementwise activations and Flatten, each reading the one before it (and
 * constants), each value inside the chain read by nothing else (the rois of an R-CNN's box,
 * mask and keypoint heads: Flatten -> Gemm -> Relu -> Gemm -> Relu, or eight Conv -> Relu
 * and a ConvTranspose). Each run checks that every value of the chain has the run's extent
 * N as its first dim, and plans the chain for N rounded up to a power of two (so that a
 * stream of varying N plans a few sessions per chain, not one per N); the rows past N are
 * padding, computed and dropped. Only the chain's inputs go up and its last outputs come
 * back. Each such session is kept with the tail for its later runs; its weights are the
 * model's bytes, uploaded once per device and shared by the chain's sessions
 * (vulkan/vk_consts.h).
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

/* For the tail's nodes (nodes[0 .. n_nodes), in order; `values` the plan's): NULL when the
 * plan's first device takes none of them (no GPU, VKML_TAIL_GPU=0) or out of memory. */
tail_gpu *tail_gpu_create(const plan_target *target, const graph *g, const graph_value *values,
                          const int *nodes, int n_nodes);
void tail_gpu_destroy(tail_gpu **tg);
/* The length of the chain that starts at the tail's k-th node (0: none starts there). */
int tail_gpu_chain(const tail_gpu *tg, int k);
/* The tail position of that chain's j-th node (j from 0 to its length). */
int tail_gpu_member(const tail_gpu *tg, int k, int j);
/* Runs the chain at the tail's k-th node on the GPU where this run's shapes (`values`,
 * inferred for each of its nodes) allow, from in[] (one pointer per input of its first
 * node) into out[] (one per output of its last node, sized for this run); *ran false (and
 * nothing done) when it does not, for the host to run its nodes. */
vkml_status tail_gpu_run(tail_gpu *tg, const graph *g, const graph_value *values, int k,
                         const void *const *in, void *const *out, bool *ran, vkml_error *err);
