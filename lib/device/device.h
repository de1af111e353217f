#pragma once
/*
 * The device interface. The CPU device (lib/cpu/cpu_device.c) and each Vulkan device
 * (lib/vulkan/vk_device.c) implement it; the planner and scheduler only see this, and the
 * registry of kinds (device/registry.h) that opens them.
 *
 * A session plans the graph into chunks (runs of nodes on one device). For each device
 * it uses, it creates one device_session from a device_session_desc: that object owns the
 * device memory of every value the device touches and one prepared program per chunk
 * (a command buffer recorded once, for Vulkan). Running a chunk re-executes that program.
 *
 * Submission is separate from completion: chunk_submit starts a chunk and returns a
 * device_event, a token of the device's one stream (the submit's fence, for Vulkan; see
 * lib/vulkan/vk_stream.h for why not a timeline semaphore) that is reached once the
 * chunk's work is done; event_wait blocks the host until then. Chunks of one device_session
 * submitted one after another run in that order and see each other's writes (queue order and
 * recorded barriers), so a chunk may be submitted before the same-device chunk it reads from has
 * finished. The CPU device completes a chunk inside chunk_submit (its event is already reached:
 * value 0).
 *
 * Thread safety:
 *   supports_node, session_create, session_destroy: any thread, any time (a device is
 *     shared by every session of the context).
 *   chunk_submit: different chunks of one device_session may be submitted at the same
 *     time on different threads (the scheduler runs independent chunks in parallel); one
 *     chunk is never submitted again before its event was waited for.
 *   event_wait: any thread, any number at once, for any event of the device.
 *   value_host_ptr: any thread; the memory behind it is only touched by the caller when
 *     no chunk that writes or reads the value is running (the scheduler orders this).
 */
#include "graph/graph.h"

typedef struct device device;
typedef struct device_session device_session;

/* What one device must do with one value of the session. */
/* event_wait's spin_ns when the session sets none: each device picks its own. */
#define DEVICE_SPIN_DEFAULT UINT64_MAX

/* A point on a device's stream: reached when the work submitted up to it is done. */
typedef struct device_event {
    device *dev;    /* the device whose stream signals it; NULL: already reached */
    uint64_t value; /* the device's token for the submit (a VkFence, for Vulkan); 0: already
                       reached */
} device_event;

typedef struct device_value_plan {
    bool used;             /* a node on this device reads or writes it */
    bool host_access;      /* the host reads/writes it between chunks (graph input, graph
                              output, or a cross-device transfer): needs value_host_ptr */
    const void *constant;  /* non-NULL: constant data the device must hold (weights) */
    int alias_of;          /* -1, or a value whose memory this value shares (OP_ALIAS nodes,
                              views: plan/views.c); a value also used on this
                              device, its root found by following alias_of */
    uint64_t alias_offset; /* bytes into alias_of's memory where this value starts (views:
                              a contiguous Slice or Split output, a Concat input written in
                              place); 0 for OP_ALIAS outputs */
    void *shared_host;     /* non-NULL: a value copied between two devices that both use this
                              host allocation (the plan's, sized and aligned to both devices'
                              host_share_align) instead of a host copy per run: the device that
                              writes the value writes it there, a device that reads it reads
                              it there (a GPU copies it into its own memory first). Its
                              value_host_ptr is this pointer. */
} device_value_plan;

typedef struct device_chunk_desc {
    const int *nodes; /* node indices, in execution order */
    int n_nodes;
} device_chunk_desc;

typedef struct device_session_desc {
    const graph *graph;        /* nodes, attributes */
    const graph_value *values; /* the session's values, concrete shapes (n = g->n_values) */
    const device_value_plan *value_plans; /* one per value */
    const device_chunk_desc *chunks;      /* this device's chunks; chunk_submit indexes them */
    int n_chunks;
    bool profile; /* time every node of every run (chunk_node_times) */
    /* [a * n_chunks + b]: chunk a always ends before chunk b starts (a is an ancestor of b
     * in the plan's chunk graph); NULL: no order known. Lets the memory plan
     * (device/mem_plan.h) share memory between values of different chunks. */
    const uint8_t *chunk_before;
    bool fast_math; /* precision fp32-fast (plan_target.fast_math) */
    /* Other runs of the session may be in flight beside this one (plan_target.runs_overlap):
     * work moved off a run's path onto a queue of its own overlaps theirs. */
    bool runs_overlap;
    /* Threads one node of the CPU device may use at once (its library kernels' team:
     * cpu/onednn/onednn.h); at least 1. */
    int cpu_threads;
} device_session_desc;

/* A device session's intermediates (device/mem_plan.h): the bytes it holds for transient
 * values, alignment included, and their liveness lower bound. */
typedef struct device_memory_use {
    uint64_t intermediate_bytes;
    uint64_t intermediate_bound;
} device_memory_use;

typedef struct device_class {
    const char *name; /* "cpu", "vulkan" */
    /* Whether the device runs this node (shapes in values are concrete). */
    bool (*supports_node)(device *dev, const graph_value *values, const graph_node *node, char *why,
                          size_t why_size);
    vkml_status (*session_create)(device *dev, const device_session_desc *desc,
                                  device_session **out, vkml_error *err);
    /* Host pointer to a host_access value's bytes (dense, row-major). */
    void *(*value_host_ptr)(device_session *ds, int value);
    /* Starts chunk `chunk`; *done is reached when it has finished. */
    vkml_status (*chunk_submit)(device_session *ds, int chunk, device_event *done, vkml_error *err);
    /* Blocks until ev is reached: polls for up to spin_ns nanoseconds (DEVICE_SPIN_DEFAULT:
     * the device's own default), then sleeps in the driver. Not called for events already
     * reached. */
    vkml_status (*event_wait)(device_event ev, uint64_t spin_ns, vkml_error *err);
    /* Microseconds each node of `chunk` took in its last completed run, in the chunk's
     * order (node_us[n_nodes]); sessions created with `profile` only. Any thread, while
     * the chunk is not running. */
    vkml_status (*chunk_node_times)(device_session *ds, int chunk, double *node_us,
                                    vkml_error *err);
    void (*session_destroy)(device_session **ds);
    /* What the session's memory plan holds for intermediates. Any thread. */
    device_memory_use (*session_memory)(const device_session *ds);
    void (*destroy)(device *dev);
} device_class;

/* Every device starts with this header (implementations embed it first). */
struct device {
    const device_class *cls;
    vkml_device_info info;
    uint64_t memory_budget;  /* bytes the planner may place on it; 0: no limit (the CPU) */
    size_t host_share_align; /* non-zero: the device can use a host allocation of the plan's
                                (device_value_plan.shared_host) whose address and size are
                                multiples of this; 0: it cannot */
    uint64_t view_align;     /* non-zero: a value may start this many bytes (a multiple) into
                                another's memory (device_value_plan.alias_offset); 0: no views */
    bool channels_last;      /* the device may store [N, C, spatial...] values channels-last
                                (the CPU device's library layouts): a range of their channels is
                                no block of memory, so none becomes a view */
};

/* The value whose memory v lives in (itself when not an alias; n: the value count, a bound
 * on the chain) and, in *offset when not NULL, the bytes into it where v starts. */
static inline int device_alias_root(const device_value_plan *plans, int n, int v, uint64_t *offset)
{
    uint64_t at = 0;
    for (int hops = 0; hops < n && plans[v].alias_of >= 0; hops++) {
        at += plans[v].alias_offset;
        v = plans[v].alias_of;
    }
    if (offset)
        *offset = at;
    return v;
}

/* Runs chunk `chunk` to completion on the caller's thread (submit, then wait). */
static inline vkml_status device_run_chunk(device *dev, device_session *ds, int chunk,
                                           vkml_error *err)
{
    device_event done = {0};
    vkml_status st = dev->cls->chunk_submit(ds, chunk, &done, err);
    if (st == VKML_OK && done.dev && done.value)
        st = done.dev->cls->event_wait(done, 0, err);
    return st;
}
