#pragma once
/*
 * The device interface. The CPU device (lib/cpu/cpu_device.c) and each Vulkan device
 * (lib/vulkan/vk_device.c) implement it; the planner and scheduler only see this.
 *
 * A session plans the graph into chunks (runs of nodes on one device). For each device
 * it uses, it creates one device_session from a device_session_desc: that object owns the
 * device memory of every value the device touches and one prepared program per chunk
 * (a command buffer recorded once, for Vulkan). Running a chunk re-executes that program.
 *
 * Thread safety:
 *   supports_node, session_create, session_destroy: any thread, any time (a device is
 *     shared by every session of the context).
 *   run_chunk: different chunks of one device_session may run at the same time on
 *     different threads (the scheduler runs independent chunks in parallel); one chunk
 *     is never run twice at once.
 *   value_host_ptr: any thread; the memory behind it is only touched by the caller when
 *     no chunk that writes or reads the value is running (the scheduler orders this).
 */
#include "graph/graph.h"

typedef struct device device;
typedef struct device_session device_session;

/* What one device must do with one value of the session. */
typedef struct device_value_plan {
    bool used;          /* a node on this device reads or writes it */
    bool host_access;   /* the host reads/writes it between chunks (graph input, graph
                           output, or a cross-device transfer): needs value_host_ptr */
    const void *constant; /* non-NULL: constant data the device must hold (weights) */
    int alias_of;       /* -1, or a value whose memory this value shares (OP_ALIAS nodes);
                           always an earlier value also used on this device */
} device_value_plan;

typedef struct device_chunk_desc {
    const int *nodes; /* node indices, in execution order */
    int n_nodes;
} device_chunk_desc;

typedef struct device_session_desc {
    const graph *graph;          /* nodes, attributes */
    const graph_value *values;   /* the session's values, concrete shapes (n = g->n_values) */
    const device_value_plan *value_plans; /* one per value */
    const device_chunk_desc *chunks;      /* this device's chunks; run_chunk indexes them */
    int n_chunks;
} device_session_desc;

typedef struct device_class {
    const char *name; /* "cpu", "vulkan" */
    /* Whether the device runs this node (shapes in values are concrete). */
    bool (*supports_node)(device *dev, const graph_value *values, const graph_node *node,
                          char *why, size_t why_size);
    vkml_status (*session_create)(device *dev, const device_session_desc *desc,
                                  device_session **out, vkml_error *err);
    /* Host pointer to a host_access value's bytes (dense, row-major). */
    void *(*value_host_ptr)(device_session *ds, int value);
    /* Executes chunk `chunk` to completion (submit and wait, for Vulkan). */
    vkml_status (*run_chunk)(device_session *ds, int chunk, vkml_error *err);
    void (*session_destroy)(device_session **ds);
    void (*destroy)(device *dev);
} device_class;

/* Every device starts with this header (implementations embed it first). */
struct device {
    const device_class *cls;
    vkml_device_info info;
    uint64_t memory_budget; /* bytes the planner may place on it; 0: no limit (the CPU) */
};

/* The CPU device (lib/cpu/cpu_device.c). */
device *cpu_device_create(void);

/* Vulkan devices (lib/vulkan/vk_context.c): an instance and one device per physical
 * device with a compute queue. A missing loader or no devices gives count 0, not an
 * error. */
typedef struct vk_context vk_context;
vkml_status vk_context_create(const vkml_context_params *params, vk_context **out,
                              vkml_error *err);
void vk_context_destroy(vk_context **vk);
int vk_context_device_count(const vk_context *vk);
device *vk_context_device(vk_context *vk, int index);
