#pragma once
/* The CPU kernels (lib/cpu/): their registry, and helpers they share. */
#include "ops/op.h"
#include "sched/sched.h"

typedef vkml_status (*cpu_kernel_fn)(const op_cpu_args *args, vkml_error *err);

/* A CPU kernel of the registry (cpu_kernel_list.h). */
typedef struct cpu_kernel {
    cpu_kernel_fn fn;
    uint32_t dtypes; /* DT() mask of the node types it takes */
} cpu_kernel;

/* The CPU kernel of an op, or NULL (op NULL, or no kernel). */
const cpu_kernel *cpu_kernel_for(const op_def *op);
/* Whether the CPU kernel exists and takes the node's type; fills why when not. */
bool cpu_kernel_supports(const graph_value *values, const graph_node *node, char *why,
                         size_t why_size);
/* Whether a node has an output of dtype STRING (its runner must give args->strings). */
bool cpu_node_makes_strings(const graph_value *values, const graph_node *node);
/* Runs a node through its CPU kernel (UNSUPPORTED naming the op when it has none). */
vkml_status cpu_run_node(const op_cpu_args *args, vkml_error *err);

/* Declarations of every kernel the registry names (repeats are harmless). */
#define CPU_KERNEL(op_, fn_, dtypes_) vkml_status fn_(const op_cpu_args *args, vkml_error *err);
#include "cpu/cpu_kernel_list.h"
#undef CPU_KERNEL

/* Y[m, n] (dense, row stride n) = sum_k A(i, k) * B(k, j), with A(i, k) at
 * a[i * a_row + k * a_col] and B(k, j) at b[k * b_row + j * b_col]. Overwrites Y. Through
 * oneDNN's sgemm when the library is in use and each operand has a unit stride
 * (onednn_sgemm), else the C kernel (the reference, VKML_CPU_KERNELS=reference). */
typedef struct cpu_sgemm_args {
    int64_t m, n, k;
    const float *a;
    int64_t a_row, a_col;
    const float *b;
    int64_t b_row, b_col;
    float *y;
} cpu_sgemm_args;
void cpu_sgemm(const cpu_sgemm_args *g);

/* Bytes of output `i` of the node (0 when absent). */
size_t cpu_output_bytes(const op_cpu_args *args, int i);
/* Applies the node's fused epilogue (ops/epilogue.h) to output 0 in place: the Conv, Gemm
 * and MatMul kernels call it last, on float32 buffers (float16 nodes: their float copies).
 * Nothing without one. */
void cpu_apply_epilogue(const op_cpu_args *args);
/* MaxPool of float32 x [batch, channels, w->in...] into y [.., w->out...] (a Conv's fused
 * pool). */
struct window_params;
void cpu_max_pool_float(const struct window_params *w, int64_t batch, int64_t channels,
                        const float *x, float *y);

/* Moves the elements of one movement step (ops/movement.h) from src to dst, elements of
 * esize bytes, split over the worker pool. */
struct mv_step;
void cpu_move_step(const struct mv_step *s, const void *src, void *dst, size_t esize);

/* Runs a float kernel (cpu_sgemm based: Conv, ConvTranspose) on a node of float16 or
 * double tensors: every such input is converted to a float copy, the kernel writes float
 * outputs, which are converted back. A float node runs the kernel as it is. */
vkml_status cpu_run_as_float(const op_cpu_args *args, cpu_kernel_fn body, vkml_error *err);

/* N-d index helpers (row-major, last dim fastest). */
static inline void cpu_index_from_linear(int64_t linear, const int64_t *dims, int rank,
                                         int64_t *idx)
{
    for (int d = rank - 1; d >= 0; d--) {
        idx[d] = linear % dims[d];
        linear /= dims[d];
    }
}

static inline void cpu_index_next(int64_t *idx, const int64_t *dims, int rank)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < dims[d])
            return;
        idx[d] = 0;
    }
}
