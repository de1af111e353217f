#pragma once
/*
 * The indexing ops (gather.c): Gather, GatherElements, GatherND, ScatterElements (and the
 * old Scatter), ScatterND, and THE index scheme their kernels share. Each node is one
 * ix_desc over a domain (the output of a gather, the updates of a scatter); at domain
 * index i:
 *   row    = sum i_d * row_d                     (which index tuple applies)
 *   offset = sum i_d * direct_d + sum_t idx[row * k + t] * idx_stride_t
 * with each idx value in [-bound_t, bound_t) (negative counts from the end). A gather
 * reads data[offset] into out[i]; a scatter writes (or reduces) updates[i] into
 * out[offset], out being a copy of data first. Indices are int32 or int64.
 *
 * An index out of range is a run-time error on the CPU (cpu/gather.c) naming it and its
 * bound; the Vulkan kernel (vulkan/ops_gather.c) writes zero (gather) or skips the update
 * (scatter), never touching memory out of bounds.
 */
#include "ops/op.h"

typedef enum ix_reduction {
    IX_NONE,
    IX_ADD,
    IX_MUL,
    IX_MAX,
    IX_MIN,
} ix_reduction;

typedef struct ix_desc {
    int rank;
    int64_t dims[VKML_MAX_RANK];
    int64_t direct[VKML_MAX_RANK];
    int64_t row[VKML_MAX_RANK];
    int k;
    int64_t idx_strides[VKML_MAX_RANK];
    int64_t idx_bounds[VKML_MAX_RANK];
    bool scatter;
    ix_reduction reduction;
} ix_desc;

typedef struct gather_params {
    int64_t axis; /* GatherND: batch_dims */
    ix_reduction reduction;
} gather_params;

/* The descriptor of an indexing node whose shapes are inferred. Inputs: data 0, indices 1,
 * updates 2 (scatters). */
vkml_status ix_describe(const graph_value *values, const graph_node *node, ix_desc *d,
                        vkml_error *err);

/* Whether Gather node (shapes inferred) takes one contiguous block of its data: one constant
 * index in range, every data dim before the axis 1 (PyTorch's packed attention projection
 * taken apart, q, k, v = proj[0], proj[1], proj[2]). Then *offset is the block's first
 * element in the data: the output may live there (plan/views.h) and its kernels skip the
 * copy. */
bool gather_block(const graph_value *values, const graph_node *node, int64_t *offset);
