#pragma once
/*
 * Memory plan of a session's transient values: values only this device touches (not
 * host_access, not constant) whose whole life lies inside one chunk. They share one
 * allocation; two of them overlap in memory only when their lives (first to last node
 * that touches them, in the chunk's order) do not overlap. Values of different chunks
 * never share, since independent chunks of one device may run at the same time. The
 * recorder's barriers see the reuse as a write after read, so it stays ordered.
 */
#include "plan/device.h"
#include "vulkan/vk_common.h"

/* root[v]: the value whose memory v shares (itself when not an alias); bytes[r]: size of
 * root r; transient[r]: candidate for sharing. On success offsets[r] holds each placed
 * root's offset in the shared range (others untouched) and *total its size; placed[r]
 * says which roots were placed (a candidate used in more than one chunk is not). */
vkml_status vk_mem_plan(const device_session_desc *desc, const int *root, const size_t *bytes,
                        const bool *transient, VkDeviceSize alignment, VkDeviceSize *offsets,
                        bool *placed, VkDeviceSize *total, vkml_error *err);
