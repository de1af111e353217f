#pragma once
#include "plan/device.h"

#include <stdatomic.h>

struct vkml_context {
    /* The caller's reference plus one per live session: a context destroyed before its
     * sessions stays alive until the last of them is destroyed. */
    atomic_int refs;
    vk_context *vk;
    device *cpu;
    int default_device; /* resolved VKML_DEVICE_DEFAULT */
};

/* The device for an index (VKML_DEVICE_CPU, VKML_DEVICE_DEFAULT or a GPU index), NULL
 * when out of range. */
device *context_device(vkml_context *ctx, int index);

/* References held by sessions. Thread-safe. */
vkml_context *context_ref(vkml_context *ctx);
void context_unref(vkml_context *ctx);
