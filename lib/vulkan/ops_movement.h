#pragma once
/* Shared by the movement and index lowerings (ops_movement.c, ops_gather.c). */
#include "vulkan/vk_ops.h"

/* The unsigned dtype of an element size (1, 2, 4, 8 bytes): the variant of the by-size
 * kernels (shaders/meson.build) that moves elements of that size; UNDEFINED otherwise. */
vkml_dtype vk_dtype_of_size(size_t size);

/* Records one movement step (ops/movement.h) from value src into value dst (nothing when dst
 * is -1) with the kernel of its kind for elements of elem_size bytes; strided steps that
 * allow it move 16-byte units instead. */
struct mv_step;
vkml_status vk_rec_move_step(gpu_recorder *rec, const struct mv_step *step, int src, int dst,
                             size_t elem_size, vkml_error *err);
