#pragma once
/*
 * Reductions (Reduce*, ArgMax/ArgMin, CumSum, TopK): their params and THE reduction view
 * every reduction and normalisation kernel walks, on every device.
 *
 * reduce_view: a dense tensor seen as `lines` output positions x `count` reduced
 * positions. The kept dims and the reduced dims (any set of axes, contiguous or not) are
 * each collapsed into at most REDUCE_MAX_GROUPS groups of adjacent dims (size-1 dims
 * dropped), so line l is at offset reduce_view_offset(keep..., l) and the r-th reduced
 * element of it (row-major over the reduced dims) at that plus
 * reduce_view_offset(red..., r). The output of a reduction is dense over the kept dims,
 * in line order; a normalisation writes each element where it read it.
 */
#include "graph/graph.h"

#define REDUCE_MAX_GROUPS 4 /* rank 8 alternating kept/reduced dims */

typedef struct reduce_view {
    int64_t lines; /* product of the kept dims */
    int64_t count; /* product of the reduced dims (0: empty set) */
    int n_keep, n_red;
    int64_t keep_dims[REDUCE_MAX_GROUPS], keep_strides[REDUCE_MAX_GROUPS];
    int64_t red_dims[REDUCE_MAX_GROUPS], red_strides[REDUCE_MAX_GROUPS];
} reduce_view;

/* The view of a dense [rank, dims] tensor reducing the axes of bit mask `axes`. */
void reduce_view_init(int rank, const int64_t *dims, uint32_t axes, reduce_view *v);

/* Element offset of the i-th position (row-major) over n dims of the given strides. */
static inline int64_t reduce_view_offset(const int64_t *dims, const int64_t *strides, int n,
                                         int64_t i)
{
    int64_t off = 0;
    for (int g = n - 1; g >= 0; g--) {
        off += (i % dims[g]) * strides[g];
        i /= dims[g];
    }
    return off;
}

static inline int64_t reduce_line_offset(const reduce_view *v, int64_t line)
{
    return reduce_view_offset(v->keep_dims, v->keep_strides, v->n_keep, line);
}

static inline int64_t reduce_elem_offset(const reduce_view *v, int64_t r)
{
    return reduce_view_offset(v->red_dims, v->red_strides, v->n_red, r);
}

/* Resolves axis (negative counts from the end) against rank; fails naming op and attr. */
vkml_status reduce_axis(const graph_node *node, const char *what, int64_t axis, int rank, int *out,
                        vkml_error *err);

typedef enum reduce_op {
    REDUCE_SUM,
    REDUCE_MEAN,
    REDUCE_MAX,
    REDUCE_MIN,
    REDUCE_PROD,
    REDUCE_L1,
    REDUCE_L2,
    REDUCE_LOG_SUM,
    REDUCE_LOG_SUM_EXP,
    REDUCE_SUM_SQUARE,
    REDUCE_ARGMAX,
    REDUCE_ARGMIN,
} reduce_op;

/* Reduce* and ArgMax/ArgMin attributes (parsed once). */
typedef struct reduce_params {
    reduce_op op;
    bool keepdims;
    bool noop_with_empty_axes;
    bool select_last_index; /* ArgMax/ArgMin */
    bool axes_from_input;   /* opset moved axes to input 1 (ReduceSum 13, others 18) */
    int n_axes;             /* of the attribute (ArgMax: 1) */
    int64_t axes[VKML_MAX_RANK];
} reduce_params;

/* What a reduction node computes, from its params, shapes and constant axes input. */
typedef struct reduce_geom {
    reduce_view view;
    int out_rank;
    int64_t out_dims[VKML_MAX_RANK];
    vkml_dtype out_dtype;
} reduce_geom;

vkml_status reduce_resolve(const graph_value *values, const graph_node *node, reduce_geom *g,
                           vkml_error *err);

/* CumSum, CumProd: the [outer, len, inner] view around the axis of input 1: its constant data, or
 * `axis_data` (the run-time value, NULL when not known) when it is not a constant. */
typedef struct cumsum_params {
    bool exclusive, reverse;
    bool product; /* CumProd */
} cumsum_params;

typedef struct scan_geom {
    int64_t outer, len, inner;
} scan_geom;

vkml_status cumsum_resolve(const graph_value *values, const graph_node *node, const void *axis_data,
                           scan_geom *g, vkml_error *err);

/* TopK: K from input 1 (constant), along axis. */
typedef struct topk_params {
    int64_t axis;
    bool largest, sorted;
} topk_params;

typedef struct topk_geom {
    int64_t outer, len, inner, k;
} topk_geom;

vkml_status topk_resolve(const graph_value *values, const graph_node *node, topk_geom *g,
                         vkml_error *err);
