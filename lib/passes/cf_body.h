#pragma once
/* Shared by the host runs of If (cf_run.c), Loop and Scan (cf_loop.c, cf_loop_append.c) and by
 * the lowering that unrolls them or keeps them for the tail (lower_unroll.c, lower_cf.c). */
#include "passes/cf_run.h"

/* dst (a subgraph's input or outer value) takes src's type, shape and data, as a constant. */
void cf_bind_value(graph_value *dst, const graph_value *src);
/* Output o of node n takes v's type, shape and data. */
void cf_set_output(graph_value *values, const graph_node *n, int o, const graph_value *v);
/* One run of a subgraph of node `owner`: its inputs are args (body->n_inputs of them), its
 * outer values owner's implicit inputs in `outer`. *out: its values (free() them), data in
 * arena or shared with the inputs. */
vkml_status cf_run_body(const cf_env *env, const graph_node *owner, const graph_value *outer,
                        const graph *body, const graph_value *args, vkml_arena *arena,
                        graph_value **out, vkml_error *err);
/* The one element of a value of type `dtype` (a condition, a trip count) into out. */
vkml_status cf_scalar_of(const graph_value *v, vkml_dtype dtype, const char *what, void *out,
                         vkml_error *err);

vkml_status cf_run_loop(const cf_env *env, graph_value *values, const graph_node *n,
                        vkml_arena *arena, vkml_error *err);
vkml_status cf_run_scan(const cf_env *env, graph_value *values, const graph_node *n,
                        vkml_arena *arena, vkml_error *err);
/* Axis k of a Scan's axes attribute (0 when absent) for a value of `rank`, normalised;
 * INVALID_MODEL naming the value when out of range. */
vkml_status cf_scan_axis(const graph_node *n, const int64_t *axes, int k, int rank,
                         const char *name, int *out, vkml_error *err);

/* Blocks before and bytes after `axis` of a shape of elements of `elem` bytes. */
void cf_axis_layout(int rank, const int64_t *dims, int axis, size_t elem, size_t *outer,
                    size_t *inner);

/* The shapes of a Scan's outputs on the plan's input shapes (cf_probe.c). */
vkml_status cf_probe_scan(const cf_env *env, graph_value *values, const graph_node *n,
                          vkml_arena *arena, vkml_error *err);

typedef vkml_status (*cf_scan_fn)(const cf_env *env, graph_value *values, const graph_node *n,
                                  vkml_arena *arena, vkml_error *err);
/* A Scan before opset 9 (cf_scan8.c): `scan` (cf_run_scan or cf_probe_scan) per element
 * of the batch dim, its outputs stacked along a new batch dim. */
vkml_status cf_run_batched(const cf_env *env, graph_value *values, const graph_node *n,
                           vkml_arena *arena, cf_scan_fn scan, vkml_error *err);

/* Loops whose iterations only append (cf_loop_append.c). */
/* Whether every carried value of a Loop of this body grows by a Concat of itself (as it came in, or
 * through Identity and same-type Casts) and rows no carried value reaches, and nothing
 * else reads a carried value; axes[j]: carried value j's Concat axis, as written. */
bool cf_loop_appends(const graph *body, int n_carried, int64_t *axes);

/* One iteration's run of a body. */
typedef struct cf_iteration {
    graph_value *vals; /* the body's values (free() them), data in arena */
    vkml_arena *arena;
    vkml_status st;
    vkml_error err;
} cf_iteration;

/* Iterations first .. first+count-1 of an appending Loop n, each from empty carried values
 * (the shapes of carried[], no rows along axes[]) and the condition true, on the host's
 * threads; its[] (zeroed by the caller, who frees their vals and arenas) gets each run. The
 * first failed iteration's error is returned. */
vkml_status cf_run_appending(const cf_env *env, const graph_node *n, const graph_value *outer,
                             const graph *body, const graph_value *carried, const int64_t *axes,
                             int64_t first, int64_t count, cf_iteration *its, vkml_error *err);
/* *result: `first` with the rows of body value `out` of its[0 .. count) after it along
 * `axis`, data in arena; INVALID_MODEL when an iteration's rows differ in type or shape. */
vkml_status cf_append_rows(const graph_node *n, const graph_value *first, const cf_iteration *its,
                           int64_t count, int out, int64_t axis, vkml_arena *arena,
                           graph_value *result, vkml_error *err);
