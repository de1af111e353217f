#pragma once
#include "ops/op.h"

/* Folds every node whose inputs are constants (running its CPU kernel once); sets
 * folded[node]. Folded data lives in `arena`. */
vkml_status plan_fold_constants(vkml_arena *arena, const graph *g, graph_value *values,
                                bool *folded, vkml_error *err);
