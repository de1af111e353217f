#pragma once
/* MaxPool/AveragePool/LpPool and the global pools: attribute parsing shared by the shape
 * functions, the CPU kernels and the Vulkan lowerings. Layout X [N, C, D1..Dn]. */
#include "ops/window.h"

/* The pools' attributes, parsed once at load (pool_parse). */
typedef struct pool_attrs {
    window_attrs win;
    bool is_max, is_lp;
    bool ceil_mode;
    bool count_include_pad;
    int storage_order;
    float lp_p;
} pool_attrs;

typedef struct pool_params {
    bool is_max; /* MaxPool */
    bool is_lp;  /* LpPool: (sum |x|^p)^(1/p) over the window's part inside the input */
    float lp_p;  /* LpPool's p */
    int64_t batch, channels;
    window_params win;
    bool ceil_mode;
    bool count_include_pad; /* AveragePool: padded elements count in the divisor */
    int storage_order;      /* MaxPool Indices: 0 row-major, 1 column-major */
    bool has_indices;       /* MaxPool output 1 (int64) requested */
} pool_params;

vkml_status pool_params_parse(const graph_value *values, const graph_node *node, pool_params *p,
                              vkml_error *err);

typedef struct global_pool_params {
    bool is_max; /* GlobalMaxPool, else GlobalAveragePool */
    int64_t batch, channels;
    int64_t spatial_size; /* elements per (n, c) plane */
} global_pool_params;

vkml_status global_pool_params_parse(const graph_value *values, const graph_node *node,
                                     global_pool_params *p, vkml_error *err);

/* MaxUnpool: X [N, C, D...] scattered by the flat indices I (MaxPool's Indices) into zeros
 * of the output shape: the constant output_shape input, else (in - 1) * stride + kernel -
 * pads per spatial dim. */
typedef struct unpool_params {
    int n_kernel, n_strides, n_pads;
    int64_t kernel[OP_MAX_SPATIAL], strides[OP_MAX_SPATIAL], pads[2 * OP_MAX_SPATIAL];
} unpool_params;

/* The shape the indices refer to: X's batch and channels, (in - 1) * stride + kernel -
 * pads per spatial dim. A larger output_shape keeps each element's coordinates. */
void unpool_default_dims(const unpool_params *p, const graph_value *x, int64_t *dims);
