#pragma once
/*
 * The dynamic tail of a plan: the nodes whose shapes are only known at run time, because
 * they are an op with a data-dependent output (OP_DATA_DEPENDENT: NonZero,
 * NonMaxSuppression) or read such a value, directly or not (the boxes an SSD gathers after
 * its NMS). They run after the planned chunks, on the host with the CPU kernels, their
 * shapes inferred again from this run's data (their heavy nodes on the plan's GPU:
 * plan/tail_gpu.h). Values they read from the planned part are
 * host-visible where they live; the graph outputs they make are data_dependent (the
 * caller's dims are set per run).
 *
 * Thread safety: a tail belongs to its plan; runs of one plan are not concurrent.
 */
#include "plan/plan.h"

typedef struct plan_tail plan_tail;

/* Finds the tail after folding (folded[node]: the node is a constant); NULL *out when the
 * graph has none. Marks its nodes in tail_node (per node), its outputs data_dependent in
 * p->values, and in tail_read (per value) what it reads from the planned part. */
vkml_status plan_tail_create(plan *p, const bool *folded, const plan_target *target,
                             plan_tail **out, vkml_error *err);
void plan_tail_destroy(plan_tail **t);
bool plan_tail_has_node(const plan_tail *t, int node);
bool plan_tail_reads(const plan_tail *t, int value);
/* Runs the tail: `inputs` are the caller's graph inputs (what the tail reads of them). */
vkml_status plan_tail_run(plan *p, plan_tail *t, const vkml_tensor *inputs, vkml_error *err);
/* With p->profile: the wall time of the last run's k-th tail node on the host (k from 0 to
 * the count), in microseconds, and its node; false past the last. */
bool plan_tail_node_time(const plan_tail *t, int k, int *node, double *us);
/* A value the last run of the tail made: its bytes and dims; NULL when it is not one. */
const void *plan_tail_value(const plan_tail *t, int value, const int64_t **dims);
