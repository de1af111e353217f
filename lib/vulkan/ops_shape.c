/* Vulkan lowering of the copy ops (Reshape, Flatten, Identity): nothing when the session
 * gave output and input the same memory (an alias), else a word copy. */
#include "vulkan/vk_ops.h"

VKML_GPU_SUPPORTS_DECL(gpu_copy_supports)
{
    const graph_value *in = graph_node_input((graph_value *)values, node, 0);
    const graph_value *out = graph_node_output((graph_value *)values, node, 0);
    if (!in || !out)
        return vk_unsupported(why, why_size, "%s without input or output", node->op_type);
    size_t bytes;
    if (!vkml_tensor_bytes(out->dtype, out->rank, out->dims, &bytes))
        return vk_unsupported(why, why_size, "'%s' has no concrete size", out->name);
    if (bytes > caps->max_storage_buffer_range)
        return vk_unsupported(why, why_size, "'%s' is over the storage buffer range", out->name);
    return true;
}

VKML_GPU_DECL(gpu_copy)
{
    int in = node->inputs[0], out = node->outputs[0];
    if (vk_rec_same_memory(rec, in, out))
        return VKML_OK;
    const graph_value *v = &values[out];
    size_t bytes;
    if (!vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "'%s' has no concrete size", v->name);
    copy_push pc = {.count = (uint32_t)((bytes + 3) / 4)};
    int bind[] = {in, out};
    return vk_rec_kernel_1d(rec, VK_KERNEL_COPY, VKML_DTYPE_UINT32, bind, &pc, sizeof(pc), pc.count,
                            err);
}
