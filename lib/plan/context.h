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
    vkml_log_callback log_callback; /* set by this context; unset when it is freed */
    void *log_user;
};

/* The device for an index (VKML_DEVICE_CPU, VKML_DEVICE_DEFAULT or a GPU index), NULL
 * when out of range. */
device *context_device(vkml_context *ctx, int index);
/* Whether GPU `index` is a discrete or integrated GPU (not a Vulkan device on the CPU,
 * such as lavapipe, nor a virtual one): the devices VKML_DEVICE_DEFAULT plans over. */
bool context_device_is_real_gpu(vkml_context *ctx, int index);

/* References held by sessions. Thread-safe. */
vkml_context *context_ref(vkml_context *ctx);
void context_unref(vkml_context *ctx);
