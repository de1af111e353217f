#pragma once
/*
 * The registry of device kinds (device/registry.c): one line per kind. A context opens
 * every kind in registry order and numbers their devices: the host kind's device (the CPU
 * device, which runs every op and is the fallback of every plan) is VKML_DEVICE_CPU, the
 * other kinds' devices 0, 1, ... in registry order (the public GPU indices).
 *
 * A new kind of device is one folder implementing device.h and device_kind, and one line
 * in registry.c. Tests add a kind of their own with device_registry_set_extra.
 *
 * Thread safety: everything here may be called from any thread; device_registry_set_extra
 * only while no context is being created.
 */
#include "device/device.h"
#include "ops/op.h"

/* A kind of device and how a context opens its devices. */
typedef struct device_kind {
    const char *name; /* "CPU", "Vulkan": vkml_op_kernel.device_kind, a column of `vkml ops` */
    /* Its one device runs every node on the host (the plan's fallback); exactly one kind
     * is the host kind. */
    bool host;
    /* Opens this kind's devices for a context (*handle: what close frees). A kind with no
     * device on this machine (no Vulkan loader) opens none and succeeds. */
    vkml_status (*open)(const vkml_context_params *params, void **handle, vkml_error *err);
    int (*count)(const void *handle);
    device *(*get)(void *handle, int i);
    void (*close)(void **handle);
    /* Whether this kind has a kernel for `op`, and the element types it takes (DT() mask,
     * ops/op.h) in *dtypes: for vkml_op_info, before any device is opened. */
    bool (*kernel_for)(const op_def *op, uint32_t *dtypes);
    /* NULL, or the kernel library that runs some forms of `op` on this kind and which
     * ("oneDNN: float32, ..."; NULL: none): for vkml_op_info. */
    const char *(*library_for)(const op_def *op);
    /* The host kind's single-node kernels (constant folding, the dynamic tail); NULL for
     * other kinds. */
    const op_host_runner *host_runner;
} device_kind;

/* Most kinds the registry holds, the extra one included. */
#define DEVICE_MAX_KINDS VKML_MAX_DEVICE_KINDS

/* The kinds in registry order (the extra one last); *n their count. */
const device_kind *const *device_kinds(int *n);
/* The host kind's runner: for passes that run without a context (folding at model load). */
const op_host_runner *device_host_runner(void);
/* Adds one kind after the registry's own (NULL removes it): for tests of a new kind. */
void device_registry_set_extra(const device_kind *kind);
