#pragma once
#include "plan/device.h"

struct vkml_context {
    vk_context *vk;
    device *cpu;
    int default_device; /* resolved VKML_DEVICE_DEFAULT */
};

/* The device for an index (VKML_DEVICE_CPU, VKML_DEVICE_DEFAULT or a GPU index), NULL
 * when out of range. */
device *context_device(vkml_context *ctx, int index);
