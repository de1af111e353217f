/* The CPU device's kernel registry, from cpu_kernel_list.h, indexed by op id. */
#include "cpu/cpu_kernels.h"

#include <stdio.h>

static const cpu_kernel cpu_kernels[OP_ID_COUNT] = {
#define CPU_KERNEL(op_, fn_, dtypes_) [OP_ID_##op_] = {.fn = fn_, .dtypes = dtypes_},
#include "cpu/cpu_kernel_list.h"
#undef CPU_KERNEL
};

const cpu_kernel *cpu_kernel_for(const op_def *op)
{
    if (!op || op->id >= OP_ID_COUNT || !cpu_kernels[op->id].fn)
        return NULL;
    return &cpu_kernels[op->id];
}

bool cpu_kernel_supports(const graph_value *values, const graph_node *node, char *why,
                         size_t why_size)
{
    const cpu_kernel *k = cpu_kernel_for(node->op);
    if (!k) {
        snprintf(why, why_size, "%s has no CPU kernel", node->op_type);
        return false;
    }
    vkml_dtype type = op_node_type(values, node);
    if (type != VKML_DTYPE_UNDEFINED && !(k->dtypes & (1u << type))) {
        snprintf(why, why_size, "%s: the CPU kernel lacks dtype %s", node->op_type,
                 vkml_dtype_name(type));
        return false;
    }
    return true;
}

bool cpu_node_makes_strings(const graph_value *values, const graph_node *node)
{
    for (int o = 0; o < node->n_outputs; o++)
        if (node->outputs[o] >= 0 && values[node->outputs[o]].dtype == VKML_DTYPE_STRING)
            return true;
    return false;
}

vkml_status cpu_run_node(const op_cpu_args *args, vkml_error *err)
{
    const cpu_kernel *k = cpu_kernel_for(args->node->op);
    if (!k)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s has no CPU kernel", args->node->op_type);
    if (!args->strings && cpu_node_makes_strings(args->values, args->node))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "%s: string outputs, but no store for their strings", args->node->op_type);
    return k->fn(args, err);
}
