/* Vulkan lowerings of the elementwise ops (to be rewritten). */
#include "ops/elementwise.h"
#include "vulkan/vk_ops.h"
