/* The Vulkan kernel registry, from vk_kernel_list.h, indexed by op id. */
#include "vulkan/vk_ops.h"

static const gpu_kernel gpu_kernels[OP_ID_COUNT] = {
#define GPU_KERNEL(op_, record_, supports_, dtypes_)                                               \
    [OP_ID_##op_] = {.record = record_, .supports = supports_, .dtypes = dtypes_},
#include "vulkan/vk_kernel_list.h"
#undef GPU_KERNEL
};

const gpu_kernel *vk_kernel_for(const op_def *op)
{
    if (!op || op->id >= OP_ID_COUNT || !gpu_kernels[op->id].record)
        return NULL;
    return &gpu_kernels[op->id];
}

bool vk_dtype_supported(const struct gpu_caps *caps, vkml_dtype dtype)
{
    switch (dtype) {
    case VKML_DTYPE_FLOAT:
    case VKML_DTYPE_INT32:
    case VKML_DTYPE_UINT32: return true;
    case VKML_DTYPE_FLOAT16: return caps->fp16;
    case VKML_DTYPE_BFLOAT16: /* 16-bit storage, float arithmetic (Cast) */
    case VKML_DTYPE_INT16:
    case VKML_DTYPE_UINT16: return caps->storage16;
    case VKML_DTYPE_INT8:
    case VKML_DTYPE_UINT8:
    case VKML_DTYPE_BOOL: return caps->storage8;
    case VKML_DTYPE_INT64:
    case VKML_DTYPE_UINT64: return caps->int64;
    case VKML_DTYPE_DOUBLE: return caps->float64;
    default: return false;
    }
}

VKML_GPU_SUPPORTS_DECL(gpu_supports_any)
{
    return vk_check_tensors(values, node, caps, true, why, why_size);
}
