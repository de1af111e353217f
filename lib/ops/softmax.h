#pragma once
/* Softmax as outer x axis_len x inner: opset < 13 coerces to 2-D at axis (default 1), so
 * inner is 1 and axis_len the product of the trailing dims; opset >= 13 normalises along
 * one axis (default -1). Element (o, a, i) is at (o * axis_len + a) * inner + i. */
#include "graph/graph.h"

typedef struct softmax_params {
    int64_t outer, axis_len, inner;
} softmax_params;

vkml_status softmax_params_parse(const graph_value *values, const graph_node *node,
                                 softmax_params *p, vkml_error *err);
