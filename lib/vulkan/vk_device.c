/* The Vulkan device_class: what the planner and scheduler call. */
#include "vulkan/vk_device.h"

#include <stdio.h>

static bool vk_supports_node(device *dev, const graph_value *values, const graph_node *node,
                             char *why, size_t why_size)
{
    vk_device *vd = (vk_device *)dev;
    const gpu_kernel *k = vk_kernel_for(node->op);
    if (!k)
        return vk_unsupported(why, why_size, "%s has no Vulkan kernel", node->op_type);
    vkml_dtype type = op_node_type(values, node);
    if (type != VKML_DTYPE_UNDEFINED && !(k->dtypes & (1u << type)))
        return vk_unsupported(why, why_size, "%s: the Vulkan kernel lacks dtype %s", node->op_type,
                              vkml_dtype_name(type));
    for (int i = 0; i < node->n_inputs + node->n_outputs; i++) {
        int v = i < node->n_inputs ? node->inputs[i] : node->outputs[i - node->n_inputs];
        if (v >= 0 && values[v].dtype == VKML_DTYPE_STRING) /* pointers to host memory */
            return vk_unsupported(why, why_size, "'%s': string values live on the CPU device",
                                  values[v].name);
        if (v >= 0 && !vk_dtype_supported(&vd->caps, values[v].dtype))
            return vk_unsupported(why, why_size, "'%s': this device has no shader support for %s",
                                  values[v].name, vkml_dtype_name(values[v].dtype));
    }
    return k->supports(values, node, &vd->caps, why, why_size);
}

/* Devices belong to their vk_context (vk_context_destroy closes them). */
static void vk_destroy(device *dev)
{
    (void)dev;
}

const device_class vk_device_class = {
    .name = "vulkan",
    .supports_node = vk_supports_node,
    .session_create = vk_session_create,
    .value_host_ptr = vk_session_host_ptr,
    .chunk_submit = vk_session_submit,
    .event_wait = vk_event_wait,
    .chunk_node_times = vk_session_node_times,
    .session_destroy = vk_session_destroy,
    .session_memory = vk_session_memory,
    .destroy = vk_destroy,
};
