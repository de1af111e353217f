#pragma once
/* Shared by the movement and index lowerings (ops_movement.c, ops_gather.c). */
#include "vulkan/vk_ops.h"

/* The unsigned dtype of an element size (1, 2, 4, 8 bytes): the variant of the by-size
 * kernels (shaders/meson.build) that moves elements of that size; UNDEFINED otherwise. */
vkml_dtype vk_dtype_of_size(size_t size);
