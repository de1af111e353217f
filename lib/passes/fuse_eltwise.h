#pragma once
/*
 * Plan-time fusion of float elementwise groups (after shape inference and folding, before
 * placement). A group is a set of float32 elementwise nodes (unary activations and math,
 * Add/Sub/Mul/Div/Pow/Min/Max/PRelu with broadcasting, Clip with constant bounds, Cast
 * float -> float) whose values made inside it are read only inside it and are not graph
 * outputs, all of the group's output's element count: a chain of any length, diamonds
 * included (SiLU: x * Sigmoid(x)). Side operands broadcast to the output's shape: small
 * constants are copied into the program, at most FUSED_MAX_INPUTS other values are read.
 * Each group of two or more nodes becomes one FusedElementwise node (ops/fused.h): one
 * dispatch on a GPU, one pass on the CPU.
 */
#include "graph/graph.h"

/* The graph g (its values: `values`, shapes inferred, constants folded) with its groups
 * fused: *out is a new graph with the same value indices (plus one constant per group: its
 * program), owned by the caller, or NULL when nothing fuses. */
vkml_status fuse_eltwise(const graph *g, const graph_value *values, graph **out, vkml_error *err);
