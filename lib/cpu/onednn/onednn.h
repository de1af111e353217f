#pragma once
/*
 * oneDNN behind the CPU device: the library kernels that run its hot nodes (Conv, MatMul,
 * Gemm, the pools) in float32, and the integer products (QLinearConv, ConvInteger,
 * QLinearMatMul, MatMulInteger) in int8, with their fused epilogues as oneDNN post-ops and
 * their constant weights packed once, at session creation, into the layout the kernel
 * reads.
 * Every other node, and every form the library does not take, runs the plain C kernel
 * (lib/cpu/<family>.c), which is also the reference the library kernels are tested
 * against.
 *
 * Layouts: a float, int8 or uint8 value of rank 3 to 5 that one library node writes and only
 * library nodes read (nothing else on the device or the host touches it, no view shares it) is kept
 * channels-last ([N, spatial..., C]) between them, the layout oneDNN's convolutions run fastest on;
 * every other value keeps ONNX's layout, and a library node reorders at its edge where the two
 * differ.
 *
 * Threads: each library node runs on oneDNN's OpenMP team of the calling thread, sized
 * to the session's CPU thread count (device_session_desc.cpu_threads).
 *
 * Concurrency: sessions are created and destroyed on any thread; nodes of different
 * chunks of one session run on different threads at once (one stream per chunk).
 */
#include "device/device.h"
#include "ops/op.h"

typedef struct onednn_session onednn_session;

/* Whether the library kernels are in use: built with oneDNN, and the environment does not
 * ask for the plain C kernels (VKML_CPU_KERNELS=reference). */
bool onednn_enabled(void);

/* Whether oneDNN's integer products are exact on this CPU: it has VNNI (AVX-512 VNNI,
 * AVX-VNNI or AMX). Without it oneDNN 2.6 multiplies uint8 by int8 with vpmaddubsw, whose
 * pairs of products saturate at int16 (255 x 127 x 2 > 32767): QLinearConv and
 * MatMulInteger came out up to 37 off on an AVX2 EPYC. The integer ops then run their C
 * kernels. */
/* Channels per block of the library's blocked layout on this CPU: 16 with AVX-512, else 8. */
int onednn_block_channels(void);
bool onednn_int8_exact(void);

/* cpu_sgemm through oneDNN's sgemm on the calling thread's OpenMP team (every core the
 * worker pool has): the product of the C kernels built on it (Conv's and MatMul's reference
 * forms, ConvTranspose, DeformConv, the RNNs) and of the host's single-node runs (folding,
 * the dynamic tail, control-flow bodies). False when the library is not in use or an
 * operand has no unit stride; then the caller computes it. */
struct cpu_sgemm_args;
bool onednn_sgemm(const struct cpu_sgemm_args *g);

/* The library's part of a CPU device session: a library node for each node of desc's
 * chunks the library takes. ptrs: each value's memory on the device (NULL: unused), bound
 * for the session's life. *out is NULL when the library is not in use. */
vkml_status onednn_session_create(const device_session_desc *desc, void *const *ptrs,
                                  onednn_session **out, vkml_error *err);
void onednn_session_destroy(onednn_session **s);
/* Whether node `node` runs through the library. */
bool onednn_session_has(const onednn_session *s, int node);
/* Runs node `node` of chunk `chunk` (onednn_session_has). */
vkml_status onednn_session_run(onednn_session *s, int chunk, int node, vkml_error *err);
/* Which forms of op the library runs ("oneDNN: float32, ..."), NULL when none. */
const char *onednn_op_forms(const op_def *op);
/* Nodes the library runs; the library's name and version ("oneDNN 2.6.3"). */
int onednn_session_node_count(const onednn_session *s);
const char *onednn_version(void);
