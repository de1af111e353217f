#pragma once
#include "device/registry.h"

#include <stdatomic.h>

struct vkml_context {
    /* The caller's reference plus one per live session: a context destroyed before its
     * sessions stays alive until the last of them is destroyed. */
    atomic_int refs;
    /* What each kind of the registry opened (device_kind.close frees it). */
    const device_kind *kinds[DEVICE_MAX_KINDS];
    void *kind_handles[DEVICE_MAX_KINDS];
    int n_kinds;
    device *host; /* the host kind's device: VKML_DEVICE_CPU, every plan's fallback */
    const op_host_runner *host_runner; /* its single-node kernels (folding, the dynamic tail) */
    device **devices;                  /* the other kinds' devices: public indices 0, 1, ... */
    int n_devices;
    int default_device; /* resolved VKML_DEVICE_DEFAULT */
    log_sink log;       /* where messages of calls on this context go */
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
