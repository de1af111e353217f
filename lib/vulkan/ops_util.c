/* Checks shared by the gpu_supports functions. */
#include "vulkan/vk_ops.h"

#include <stdio.h>

bool vk_unsupported(char *why, size_t why_size, const char *fmt, ...)
{
    if (why && why_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_size, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool check_one(const graph_value *v, const struct gpu_caps *caps, bool any_dtype, char *why,
                      size_t why_size)
{
    if (!any_dtype && v->dtype != VKML_DTYPE_FLOAT)
        return vk_unsupported(why, why_size, "'%s' is %s; the Vulkan kernels take float", v->name,
                              vkml_dtype_name(v->dtype));
    if (v->dtype > 0 && v->dtype < 32 && (DT_SMALL & (1u << v->dtype)))
        return vk_unsupported(why, why_size,
                              "'%s' is %s; the Vulkan kernels take no float8, "
                              "float4 or packed integer tensors",
                              v->name, vkml_dtype_name(v->dtype));
    size_t bytes;
    if (!vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes))
        return vk_unsupported(why, why_size, "'%s' has no concrete size", v->name);
    if (bytes > caps->max_storage_buffer_range || bytes / 4 >= (1u << 31))
        return vk_unsupported(why, why_size,
                              "'%s' is %zu bytes, over the device's storage buffer range (%llu)",
                              v->name, bytes, (unsigned long long)caps->max_storage_buffer_range);
    return true;
}

bool vk_check_tensors(const graph_value *values, const graph_node *node,
                      const struct gpu_caps *caps, bool any_dtype, char *why, size_t why_size)
{
    for (int i = 0; i < node->n_inputs; i++) {
        if (node->inputs[i] >= 0 &&
            !check_one(&values[node->inputs[i]], caps, any_dtype, why, why_size))
            return false;
    }
    for (int i = 0; i < node->n_outputs; i++) {
        if (node->outputs[i] >= 0 &&
            !check_one(&values[node->outputs[i]], caps, any_dtype, why, why_size))
            return false;
    }
    return true;
}

bool vk_parse_failed(const vkml_error *err, char *why, size_t why_size)
{
    return vk_unsupported(why, why_size, "%s", err->message);
}
