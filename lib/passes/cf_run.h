#pragma once
/*
 * Control-flow nodes (If, Loop, Scan) run on the host: each subgraph node is inferred and
 * run through the host kernels (fold_if_constant) with every input known, nested
 * control-flow nodes recursively. A plan uses it to fold a node whose inputs are all
 * constants (passes/lower_cf.c), and its dynamic tail to run the others per run
 * (plan/tail.c).
 */
#include "ops/op.h"

typedef struct cf_env {
    const op_host_runner *runner; /* the host kernels */
    int64_t max_iterations;       /* per run of one Loop node; more is an error */
    /* Shapes only (cf_probe_node): values may lack data, subgraph nodes are inferred and
     * folded where they can be, and nested control-flow nodes probed. */
    bool probe;
} cf_env;

/* Runs control-flow node `node` of g: every input (explicit and implicit) has its data in
 * `values`. On success each output has its dtype, rank, dims and data (in `arena`) set.
 * Errors name the node, and the subgraph node that failed. */
vkml_status cf_run_node(const cf_env *env, const graph *g, graph_value *values, int node,
                        vkml_arena *arena, vkml_error *err);

/* Plan-time shapes of control-flow node `node`, whose inputs have shapes (data where they
 * are constants): each output gets its dtype and a shape that bounds its extent (If: both
 * branches' largest; Loop: the first iteration's carried shapes, scan outputs with as many
 * rows as the trip count when it is constant, else the iteration limit, at most
 * CF_BOUND_MAX_BYTES; Scan: exact). A node whose inputs are all constants is run instead,
 * its outputs with their data. */
vkml_status cf_probe_node(const cf_env *env, const graph *g, graph_value *values, int node,
                          vkml_arena *arena, vkml_error *err);

/* Largest bound cf_probe_node gives a Loop's scan output when its trip count is not known
 * at plan time (bytes). */
#define CF_BOUND_MAX_BYTES ((size_t)64 << 20)
