#pragma once
/* Shared by the host runs of If (cf_run.c) and of Loop and Scan (cf_loop.c). */
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
