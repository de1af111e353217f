/* The Vulkan device_class: what the planner and scheduler call. */
#include "vulkan/vk_device.h"

#include <stdio.h>

static bool vk_supports_node(device *dev, const graph_value *values, const graph_node *node,
                             char *why, size_t why_size)
{
    vk_device *vd = (vk_device *)dev;
    const op_def *op = node->op;
    if (!op || !op->gpu)
        return vk_unsupported(why, why_size, "%s has no Vulkan kernel", node->op_type);
    if (!op->gpu_supports)
        return vk_check_tensors(values, node, &vd->caps, false, why, why_size);
    return op->gpu_supports(values, node, &vd->caps, why, why_size);
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
    .run_chunk = vk_session_run,
    .session_destroy = vk_session_destroy,
    .destroy = vk_destroy,
};
