#pragma once
/* The graph of a session with vkml_session_params.preprocess (session_preprocess.c). */
#include "graph/graph.h"
#include "ops/op.h"

/* *out: a new graph (graph_destroy it after every plan of it) that is `g` with input 0
 * replaced by the frame's bytes (uint8 [frame bytes rounded up to 4]; with a batch N > 1
 * bound, [N, that]) and an
 * ImagePreprocess node producing the model's input 0 at its bound shape (input_shapes[0]
 * or the model's, symbolic dims `symbolic`). With pp->rect_input, one more input, last:
 * the source rectangle (int32 [4]). INVALID_ARGUMENT naming what does not fit. */
vkml_status session_preprocess_graph(const graph *g, const vkml_preprocess *pp,
                                     const vkml_tensor_info *input_shapes, int64_t symbolic,
                                     graph **out, vkml_error *err);
