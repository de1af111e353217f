#pragma once
/* Declarations of every function op_list.h names, generated from the list itself. */
#include "ops/op.h"

#define OP(name_, domain_, since_, last_, dtypes_, flags_, infer_, cpu_, gpu_, gpu_supports_) \
    vkml_status infer_(graph_value *values, const graph_node *node, vkml_error *err);        \
    vkml_status cpu_(const op_cpu_args *args, vkml_error *err);
#include "ops/op_list.h"
#undef OP

/* GPU lowerings: declared once per distinct name below (a NULL entry declares nothing). */
#define VKML_GPU_DECL(fn)                                                                   \
    vkml_status fn(struct gpu_recorder *rec, const graph_value *values,                    \
                   const graph_node *node, vkml_error *err)
#define VKML_GPU_SUPPORTS_DECL(fn)                                                          \
    bool fn(const graph_value *values, const graph_node *node, const struct gpu_caps *caps,\
            char *why, size_t why_size)
#include "ops/op_gpu_decls.h"
