#pragma once
/*
 * The plan of one session: concrete shapes, folded constants, node placement, chunks
 * (runs of consecutive nodes on one device) with their dependencies and the transfers
 * they need, and one device_session per device used.
 *
 * Placement (plan/place.c): greedy in topological order over the session's device set.
 * Each node goes to the first GPU of the set, from the current one on, that runs it and
 * still has budget for what it adds (constants and inputs not yet there, its outputs)
 * over what is live there by a liveness estimate; when a GPU is full the pass moves to
 * the next and stays there (a chain stays on one device; a model that fits the first GPU
 * is not split). A node no GPU of the set runs goes to the CPU. A node that some GPU runs
 * but none has room for refuses the plan with the sizes.
 *
 * Values live where they are produced; a consumer on another device gets its own copy
 * through a transfer done by the first chunk on that device that reads it. When both
 * devices can use host memory the plan allocates (device.host_share_align: the CPU, and
 * GPUs with VK_EXT_external_memory_host), the producer writes the value into one such
 * allocation and the reader uses it directly (a GPU copies it into its own memory at the
 * start of that chunk): no host copy. Otherwise the host copies between the two devices'
 * host-visible memory. VKML_NO_SHARED_HOST=1 forces host copies (for comparison).
 */
#include "device/device.h"
#include "ops/op.h"

#include <stdatomic.h>

/* Device slots of a plan: up to 16 GPUs and the CPU. */
#define PLAN_MAX_DEVICES 17

/* The devices a plan may use: devices in order of preference (GPUs), and the host device
 * (the fallback for nodes none of them runs; the only device when n_devices is 0). */
typedef struct plan_target {
    vkml_context *ctx; /* the session's (the tail's GPU nodes make sessions of their own) */
    device *devices[PLAN_MAX_DEVICES - 1];
    int dev_index[PLAN_MAX_DEVICES - 1]; /* their public indices */
    int n_devices;
    device *host;
    const op_host_runner *runner; /* the host's single-node kernels: folding, the tail */
    const log_sink *log;          /* the session's: chunks log there on any thread */
    uint64_t budget;              /* bytes per GPU; 0: each device's own memory_budget */
    bool no_fuse;      /* keep elementwise groups as their nodes (passes/fuse_eltwise.h) */
    bool profile;      /* time every node (plan_node_times) */
    bool fast_math;    /* precision fp32-fast: float32 products may round to float16 inside */
    bool runs_overlap; /* several runs in flight (vkml_session_params.runs_in_flight > 1) */
    int cpu_threads;   /* threads a CPU device node may use (vkml_session_params.cpu_threads) */
    int64_t max_loop_iterations; /* vkml_session_params.max_loop_iterations, resolved */
} plan_target;

typedef struct plan_chunk {
    int slot;        /* device slot */
    int local_index; /* chunk index within its device session */
    int *nodes;
    int n_nodes;
    int *preds; /* chunks that must finish first */
    int n_preds;
    int *transfers; /* values copied in from their home device before the chunk runs */
    int n_transfers;
} plan_chunk;

typedef struct plan_device {
    device *dev;
    int index;                          /* public device index (VKML_DEVICE_CPU for the CPU) */
    int n_nodes, first_node, last_node; /* nodes placed here (first/last -1 when none) */
    uint64_t weight_bytes;              /* constants held here (placement's estimate) */
    uint64_t peak_bytes;                /* peak of live inputs, intermediates and copies here */
    device_value_plan *value_plans;     /* one per value */
    device_chunk_desc *chunk_descs;
    int n_chunks;
    uint8_t *chunk_before; /* device_session_desc.chunk_before, or NULL */
    device_session *session;
    device_memory_use memory; /* the session's memory plan of intermediates */
} plan_device;

typedef struct plan {
    vkml_arena *arena;   /* every array below, and folded constant data */
    const graph *graph;  /* the model's, or `lowered` */
    graph *lowered;      /* the plan's own graph when the model has sequence ops or
                            control flow (passes/lower.h), else NULL */
    graph *attention;    /* the plan's own graph when attention groups were fused
                            (passes/fuse_attention.h), else NULL */
    graph *fused;        /* the plan's own graph when elementwise groups were fused
                            (passes/fuse_eltwise.h), else NULL */
    graph_value *values; /* session copy of the values: shapes bound, constants folded */
    int *node_slot;      /* per node: device slot, -1 when folded into a constant,
                            PLAN_SLOT_TAIL in the dynamic tail */
    int *value_home;     /* per value: slot of its producer; -1 inputs and constants */
    plan_device devices[PLAN_MAX_DEVICES];
    int n_devices;
    plan_chunk *chunks;
    int n_chunks;
    struct plan_tail *tail; /* nodes of run-time shapes (plan/tail.h), or NULL */
    void **shared_host;     /* per value: the host allocation its producer and readers on
                               other devices share (device_value_plan.shared_host), or
                               NULL (the value is copied by the host, or stays home) */
    uint64_t wait_spin_ns;  /* host waits poll this long before they sleep (or
                               DEVICE_SPIN_DEFAULT) */
    bool profile;           /* device sessions time their nodes (plan_node_times) */
    /* Host waits for a device event (a GPU chunk's completion) in this plan's runs so far;
     * tests read it to check that same-device chunk boundaries never wait on the host.
     * Relaxed: a tally that orders nothing. */
    atomic_long host_waits;
    bool fast_math;              /* plan_target.fast_math, for the device sessions */
    bool runs_overlap;           /* plan_target.runs_overlap, for the device sessions */
    int cpu_threads;             /* plan_target.cpu_threads, for the device sessions */
    int64_t max_loop_iterations; /* plan_target.max_loop_iterations, for the tail */
    const log_sink *log;         /* plan_target.log */
} plan;

/* node_slot of a node the dynamic tail runs. */
#define PLAN_SLOT_TAIL (-2)

/* Binds symbolic dims, infers shapes, folds constants, places nodes on the target's
 * devices, and creates the device sessions (which record their work). */
vkml_status plan_create(const graph *g, const plan_target *target, int64_t symbolic_value,
                        const vkml_tensor_info *input_shapes, const vkml_tensor *input_values,
                        plan **out, vkml_error *err);
void plan_destroy(plan **p);

/* Sets node_slot of every node and fills devices[] (plan/place.c). */
vkml_status plan_place_nodes(plan *p, const plan_target *t, const bool *folded, vkml_error *err);

/* Starts one chunk: its transfers in (host copies: the chunks producing them have
 * completed), then the device's program; *done is its event. Thread-safe for different
 * chunks (the scheduler calls it from several threads). */
vkml_status plan_submit_chunk(plan *p, int chunk, device_event *done, vkml_error *err);
/* Host wait for a chunk's event (counted in host_waits). Any thread. */
vkml_status plan_wait_event(plan *p, device_event ev, vkml_error *err);
/* The scheduler's stream of a chunk: its device slot for a GPU (chunks of one GPU run in
 * queue order), -1 for the CPU (done when submitted). */
int plan_chunk_stream(const plan *p, int chunk);

/* Per node of p->graph: microseconds it took on its device in the plan's last completed
 * run (device time: GPU timestamps, the CPU's clock); -1 for nodes no device ran (folded,
 * the dynamic tail). The plan must have been created with target->profile. */
vkml_status plan_node_times(plan *p, double *node_us, vkml_error *err);

/* Host pointer of value v on device slot `slot` (must be host_access there). */
void *plan_value_ptr(plan *p, int slot, int value);

/* The plan behind a session (for tests and tools inside the library). */
const plan *session_plan(const vkml_session *s);
