/* Constant and the copy ops (Identity, Flatten, Reshape) on the CPU. When the device
 * gives an alias the same memory as its input, the copy is skipped. */
#include "cpu/cpu_kernels.h"

#include <string.h>

vkml_status cpu_copy(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    size_t bytes = cpu_output_bytes(args, 0);
    if (args->out[0] != args->in[0] && bytes)
        memmove(args->out[0], args->in[0], bytes);
    return VKML_OK;
}

vkml_status cpu_constant(const op_cpu_args *args, vkml_error *err)
{
    const graph_value *y = graph_node_output((graph_value *)args->values, args->node, 0);
    size_t bytes = cpu_output_bytes(args, 0);
    if (!y || !y->data || y->data_size < bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Constant output '%s' has no data",
                         y ? y->name : "?");
    if (args->out[0] != y->data && bytes)
        memcpy(args->out[0], y->data, bytes);
    return VKML_OK;
}
