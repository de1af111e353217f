/*
 * The CPU device: runs its hot nodes through oneDNN (cpu/onednn/onednn.h) and every other
 * node through its op's C kernel (lib/cpu/<family>.c), on host memory. A session's transient values
 * (computed and read only here, not strings) share one 64-byte aligned buffer by liveness
 * (device/mem_plan.h); the other values it computes get their own; constants are used in place and
 * aliases share their source's buffer. A string value's buffer is its array of pointers; the
 * strings themselves live in its chunk's string store, emptied when the chunk runs again (the next
 * run: runs of one session do not overlap).
 */
#include "cpu/cpu_device.h"
#include "cpu/cpu_kernels.h"
#include "cpu/onednn/onednn.h"
#include "device/mem_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CPU_ALIGNMENT 64 /* bytes; cache line and widest SIMD load */

typedef struct cpu_node_io {
    const void **in;
    void **out;
} cpu_node_io;

typedef struct cpu_chunk {
    int *nodes;
    int n_nodes;
    bool makes_strings;  /* some node has a string output */
    vkml_arena *strings; /* their strings, this run's */
    double *times;       /* profiled sessions: microseconds per node, last run */
} cpu_chunk;

struct device_session {
    const graph *graph;
    graph_value *values; /* copy of the desc's values (concrete shapes) */
    int n_values;
    void **ptrs;  /* per value: its bytes, or NULL when unused */
    bool *owned;  /* per value: ptrs[i] was allocated here */
    void *shared; /* the transient values' buffer (NULL when none) */
    device_memory_use memory_use;
    cpu_node_io *io; /* per graph node: input/output pointers (bound once) */
    cpu_chunk *chunks;
    int n_chunks;
    int threads;             /* threads a node may use (the session's cpu_threads) */
    onednn_session *library; /* the nodes oneDNN runs (NULL: none) */
    int *inplace;            /* per value: the value whose memory it takes (-1: none) */
};

static bool cpu_supports_node(device *dev, const graph_value *values, const graph_node *node,
                              char *why, size_t why_size)
{
    (void)dev;
    return cpu_kernel_supports(values, node, why, why_size);
}

static void *aligned_buffer(size_t bytes)
{
    size_t rounded = (bytes + CPU_ALIGNMENT - 1) / CPU_ALIGNMENT * CPU_ALIGNMENT;
    return aligned_alloc(CPU_ALIGNMENT, rounded ? rounded : CPU_ALIGNMENT);
}

/* Physical memory of the machine: a session that needs more is refused up front rather
 * than left to overcommit and the OOM killer. */
static size_t host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t total;
    if (pages <= 0 || page <= 0 || !vkml_mul_size((size_t)pages, (size_t)page, &total))
        return SIZE_MAX;
    return total;
}

static void cpu_session_destroy(device_session **dsp)
{
    if (!dsp || !*dsp)
        return;
    device_session *ds = *dsp;
    onednn_session_destroy(&ds->library); /* before the memory its nodes are bound to */
    for (int i = 0; ds->ptrs && i < ds->n_values; i++)
        if (ds->owned[i])
            free(ds->ptrs[i]);
    for (int i = 0; ds->io && i < ds->graph->n_nodes; i++) {
        free(ds->io[i].in);
        free(ds->io[i].out);
    }
    for (int c = 0; ds->chunks && c < ds->n_chunks; c++) {
        free(ds->chunks[c].nodes);
        free(ds->chunks[c].times);
        vkml_arena_destroy(&ds->chunks[c].strings);
    }
    free(ds->chunks);
    free(ds->shared);
    free(ds->io);
    free(ds->owned);
    free(ds->ptrs);
    free(ds->inplace);
    free(ds->values);
    free(ds);
    *dsp = NULL;
}

/* Whether value v is read by a node other than those before position `pos` of chunk c. */
static bool read_later(const device_session_desc *desc, int v, int c, int pos)
{
    for (int k = 0; k < desc->n_chunks; k++)
        for (int p = 0; p < desc->chunks[k].n_nodes; p++) {
            const graph_node *n = &desc->graph->nodes[desc->chunks[k].nodes[p]];
            for (int i = 0; i < n->n_inputs; i++)
                if (n->inputs[i] == v && (k != c || p >= pos))
                    return true;
        }
    return false;
}

/* A Conv's output in its fused residual's memory: no value in that memory (the residual's
 * root and the values sharing it: views, earlier outputs placed so) is read after the
 * Conv in its chunk or read by another chunk, nor is it one of the conv's other inputs;
 * both are float32 and the memory is transient, large enough and not the host's. oneDNN's
 * sum post-op then adds the residual where it lies, and its copy into the destination
 * goes (ResNet-50: 22 MB a run). Returns the residual's root (the output in *y), or -1. */
static int inplace_residual(const device_session_desc *desc, int c, int pos, const int *root,
                            const bool *transient, const uint64_t *size, const int *inplace, int *y)
{
    const graph_node *n = &desc->graph->nodes[desc->chunks[c].nodes[pos]];
    const graph_epilogue *e = n->epilogue;
    if (strcmp(n->op_type, "Conv") != 0 || !e || e->residual < 0 || e->residual >= n->n_inputs ||
        n->n_outputs != 1)
        return -1;
    int r = n->inputs[e->residual], out = n->outputs[0], nv = desc->graph->n_values;
    if (r < 0 || out < 0 || root[out] != out || !transient[out] ||
        desc->values[r].dtype != VKML_DTYPE_FLOAT || desc->values[out].dtype != VKML_DTYPE_FLOAT)
        return -1;
    int home = root[r]; /* r must start where its memory does: the root, or in place there */
    if (home < 0 || (r != home && inplace[r] != home) || !transient[home] || size[home] < size[out])
        return -1;
    for (int v = 0; v < nv; v++) {
        if (v == out || root[v] != home)
            continue;
        if (read_later(desc, v, c, pos + 1))
            return -1;
        for (int i = 0; i < n->n_inputs; i++)
            if (i != e->residual && n->inputs[i] == v)
                return -1;
    }
    *y = out;
    return home;
}

/* Offsets of the transient roots in one shared buffer (placed[r]), *total its bytes. */
static vkml_status plan_transients(device_session *ds, const device_session_desc *desc,
                                   uint64_t *offsets, bool *placed, uint64_t *total,
                                   vkml_error *err)
{
    int n = ds->n_values;
    int *root = calloc((size_t)n + 1, sizeof(int));
    uint64_t *size = calloc((size_t)n + 1, sizeof(uint64_t));
    bool *transient = calloc((size_t)n + 1, sizeof(bool));
    vkml_status st = VKML_OK;
    if (!root || !size || !transient)
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    for (int v = 0; !st && v < n; v++) {
        const device_value_plan *vp = &desc->value_plans[v];
        const graph_value *val = &ds->values[v];
        size_t bytes = 0;
        root[v] = device_alias_root(desc->value_plans, n, v, NULL);
        transient[v] = vp->used && vp->alias_of < 0 && !vp->constant && !vp->host_access &&
                       val->dtype != VKML_DTYPE_STRING &&
                       vkml_tensor_bytes(val->dtype, val->rank, val->dims, &bytes);
        size[v] = transient[v] ? bytes : 0;
    }
    for (int v = 0; !st && v < n; v++) /* a root some alias of which the host touches */
        if (desc->value_plans[v].used && desc->value_plans[v].host_access)
            transient[root[v]] = false;
    int in_place = 0;
    for (int c = 0; !st && !vkml_env_flag("VKML_NO_INPLACE") && c < desc->n_chunks; c++)
        for (int pos = 0; pos < desc->chunks[c].n_nodes; pos++) {
            int y, r = inplace_residual(desc, c, pos, root, transient, size, ds->inplace, &y);
            if (r < 0)
                continue;
            for (int v = 0; v < n; v++) /* y and its views live in r's memory */
                if (root[v] == y)
                    root[v] = r;
            transient[y] = false;
            size[y] = 0;
            ds->inplace[y] = r;
            in_place++;
        }
    if (in_place)
        VKML_LOGD("CPU device: %d convs write their output in their residual's memory", in_place);
    mem_plan_args args = {.desc = desc,
                          .root = root,
                          .size = size,
                          .transient = transient,
                          .alignment = CPU_ALIGNMENT,
                          .serial = false};
    uint64_t bound = 0;
    if (!st)
        st = mem_plan_session(&args, offsets, placed, total, &bound, err);
    ds->memory_use = (device_memory_use){.intermediate_bytes = *total, .intermediate_bound = bound};
    free(root);
    free(size);
    free(transient);
    return st;
}

/* Constants in place, transient values in the shared buffer, the other computed values in
 * their own buffers; aliases afterwards. */
static vkml_status bind_values(device_session *ds, const device_session_desc *desc, vkml_error *err)
{
    char shape[160];
    const device_value_plan *plans = desc->value_plans;
    uint64_t *offsets = calloc((size_t)ds->n_values + 1, sizeof(uint64_t)), shared = 0;
    bool *placed = calloc((size_t)ds->n_values + 1, sizeof(bool));
    vkml_status st = offsets && placed
                         ? plan_transients(ds, desc, offsets, placed, &shared, err)
                         : vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    size_t total = 0, limit = host_memory();
    if (!st && shared > limit)
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                       "CPU device: the session's intermediates need %llu bytes, more than the "
                       "machine's memory (%zu bytes)",
                       (unsigned long long)shared, limit);
    if (!st && shared && !(ds->shared = aligned_buffer((size_t)shared)))
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                       "CPU device: no memory for the intermediates (%llu bytes)",
                       (unsigned long long)shared);
    total = (size_t)shared;
    for (int i = 0; !st && i < ds->n_values; i++)
        if (placed[i])
            ds->ptrs[i] = (char *)ds->shared + offsets[i];
    for (int i = 0; !st && i < ds->n_values; i++)
        if (ds->inplace[i] >= 0)
            ds->ptrs[i] = ds->ptrs[ds->inplace[i]];
    free(offsets);
    free(placed);
    if (st)
        return st;
    for (int i = 0; i < ds->n_values; i++) {
        const graph_value *v = &ds->values[i];
        size_t bytes;
        if (!plans[i].used || plans[i].alias_of >= 0 || ds->ptrs[i])
            continue;
        if (plans[i].constant || plans[i].shared_host) {
            ds->ptrs[i] = plans[i].constant ? (void *)plans[i].constant : plans[i].shared_host;
            continue;
        }
        if (!vkml_tensor_bytes(v->dtype, v->rank, v->dims, &bytes))
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "CPU device: value '%s' (%s, "
                             "%s) has no size",
                             v->name, vkml_dtype_name(v->dtype),
                             graph_shape_string(v->rank, v->dims, shape, sizeof(shape)));
        if (bytes > limit - total)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "CPU device: value '%s' (%s) needs %zu bytes; with the session's "
                             "other values that is more than the machine's memory (%zu bytes)",
                             v->name, graph_shape_string(v->rank, v->dims, shape, sizeof(shape)),
                             bytes, limit);
        total += bytes;
        if (!(ds->ptrs[i] = aligned_buffer(bytes)))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "CPU device: no memory for value "
                             "'%s' (%zu bytes)",
                             v->name, bytes);
        ds->owned[i] = true;
    }
    for (int i = 0; i < ds->n_values; i++) {
        if (!plans[i].used || plans[i].alias_of < 0)
            continue;
        uint64_t offset; /* a view (plan/views.h) starts inside its root */
        int src = device_alias_root(plans, ds->n_values, i, &offset);
        if (!ds->ptrs[src])
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "CPU device: value '%s' aliases "
                             "'%s', which has no memory here",
                             ds->values[i].name, ds->values[src].name);
        ds->ptrs[i] = (char *)ds->ptrs[src] + offset;
    }
    return VKML_OK;
}

/* Each node's input/output pointer arrays, bound once (memory never moves). */
static vkml_status bind_node(device_session *ds, int index, vkml_error *err)
{
    const graph_node *n = &ds->graph->nodes[index];
    cpu_node_io *io = &ds->io[index];
    io->in = calloc((size_t)n->n_inputs + 1, sizeof(void *));
    io->out = calloc((size_t)n->n_outputs + 1, sizeof(void *));
    if (!io->in || !io->out)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    for (int i = 0; i < n->n_inputs; i++)
        io->in[i] = n->inputs[i] >= 0 ? ds->ptrs[n->inputs[i]] : NULL;
    for (int i = 0; i < n->n_outputs; i++)
        io->out[i] = n->outputs[i] >= 0 ? ds->ptrs[n->outputs[i]] : NULL;
    return VKML_OK;
}

static vkml_status copy_chunks(device_session *ds, const device_session_desc *desc, vkml_error *err)
{
    ds->chunks = calloc((size_t)desc->n_chunks + 1, sizeof(cpu_chunk));
    if (!ds->chunks)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    ds->n_chunks = desc->n_chunks;
    for (int c = 0; c < desc->n_chunks; c++) {
        const device_chunk_desc *src = &desc->chunks[c];
        cpu_chunk *dst = &ds->chunks[c];
        dst->nodes = malloc(sizeof(int) * ((size_t)src->n_nodes + 1));
        if (!dst->nodes)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
        memcpy(dst->nodes, src->nodes, sizeof(int) * (size_t)src->n_nodes);
        dst->n_nodes = src->n_nodes;
        if (desc->profile && !(dst->times = calloc((size_t)src->n_nodes + 1, sizeof(double))))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
        for (int k = 0; k < src->n_nodes; k++) {
            if (src->nodes[k] < 0 || src->nodes[k] >= ds->graph->n_nodes)
                return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                                 "CPU device: chunk %d names "
                                 "node %d of %d",
                                 c, src->nodes[k], ds->graph->n_nodes);
            vkml_status st = bind_node(ds, src->nodes[k], err);
            if (st)
                return st;
            dst->makes_strings |=
                cpu_node_makes_strings(ds->values, &ds->graph->nodes[src->nodes[k]]);
        }
    }
    return VKML_OK;
}

static vkml_status cpu_session_create(device *dev, const device_session_desc *desc,
                                      device_session **out, vkml_error *err)
{
    (void)dev;
    const graph *g = desc->graph;
    device_session *ds = calloc(1, sizeof(*ds));
    if (!ds)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    ds->graph = g;
    ds->threads = desc->cpu_threads;
    ds->n_values = g->n_values;
    ds->values = malloc(sizeof(graph_value) * ((size_t)g->n_values + 1));
    ds->ptrs = calloc((size_t)g->n_values + 1, sizeof(void *));
    ds->owned = calloc((size_t)g->n_values + 1, sizeof(bool));
    ds->io = calloc((size_t)g->n_nodes + 1, sizeof(cpu_node_io));
    ds->inplace = malloc(sizeof(int) * ((size_t)g->n_values + 1));
    vkml_status st = VKML_OK;
    if (!ds->values || !ds->ptrs || !ds->owned || !ds->io || !ds->inplace)
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    for (int v = 0; !st && v < g->n_values; v++)
        ds->inplace[v] = -1;
    if (!st) {
        memcpy(ds->values, desc->values, sizeof(graph_value) * (size_t)g->n_values);
        st = bind_values(ds, desc, err);
    }
    if (!st)
        st = copy_chunks(ds, desc, err);
    if (!st)
        st = onednn_session_create(desc, ds->ptrs, &ds->library, err);
    if (st) {
        cpu_session_destroy(&ds);
        return st;
    }
    *out = ds;
    return VKML_OK;
}

static device_memory_use cpu_session_memory(const device_session *ds)
{
    return ds ? ds->memory_use : (device_memory_use){0};
}

static void *cpu_value_host_ptr(device_session *ds, int value)
{
    return value >= 0 && value < ds->n_values ? ds->ptrs[value] : NULL;
}

/* Runs the chunk on the caller's thread: done on return (its event is already reached). */
static vkml_status cpu_chunk_submit(device_session *ds, int chunk, device_event *done,
                                    vkml_error *err)
{
    char label[300];
    *done = (device_event){0};
    if (chunk < 0 || chunk >= ds->n_chunks)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "CPU device: no chunk %d", chunk);
    cpu_chunk *c = &ds->chunks[chunk];
    if (c->makes_strings) { /* last run's strings are read by no one now */
        vkml_arena_destroy(&c->strings);
        if (!(c->strings = vkml_arena_create()))
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "CPU device: out of memory");
    }
    int limit = sched_limit_threads(ds->threads);
    vkml_status st = VKML_OK;
    for (int k = 0; !st && k < c->n_nodes; k++) {
        int index = c->nodes[k];
        const graph_node *n = &ds->graph->nodes[index];
        op_cpu_args args = {.values = ds->values,
                            .node = n,
                            .in = ds->io[index].in,
                            .out = ds->io[index].out,
                            .strings = c->strings};
        uint64_t t0 = c->times ? vkml_now_ns() : 0;
        st = onednn_session_has(ds->library, index)
                 ? onednn_session_run(ds->library, chunk, index, err)
                 : cpu_run_node(&args, err);
        if (c->times)
            c->times[k] = (double)(vkml_now_ns() - t0) / 1e3;
        if (st)
            vkml_error_prefix(err, "%s", graph_node_label(ds->graph, index, label, sizeof(label)));
    }
    sched_limit_threads(limit);
    return st;
}

static vkml_status cpu_chunk_node_times(device_session *ds, int chunk, double *node_us,
                                        vkml_error *err)
{
    if (chunk < 0 || chunk >= ds->n_chunks || !ds->chunks[chunk].times)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "CPU device: chunk %d is not profiled",
                         chunk);
    memcpy(node_us, ds->chunks[chunk].times, sizeof(double) * (size_t)ds->chunks[chunk].n_nodes);
    return VKML_OK;
}

static vkml_status cpu_event_wait(device_event ev, uint64_t spin_ns, vkml_error *err)
{
    (void)ev;
    (void)spin_ns;
    (void)err;
    return VKML_OK; /* never pending */
}

static void cpu_destroy(device *dev)
{
    free(dev);
}

static const device_class cpu_device_class = {
    .name = "cpu",
    .supports_node = cpu_supports_node,
    .session_create = cpu_session_create,
    .value_host_ptr = cpu_value_host_ptr,
    .chunk_submit = cpu_chunk_submit,
    .event_wait = cpu_event_wait,
    .chunk_node_times = cpu_chunk_node_times,
    .session_destroy = cpu_session_destroy,
    .session_memory = cpu_session_memory,
    .destroy = cpu_destroy,
};

/* "model name : Intel(R) ..." from /proc/cpuinfo, or "CPU". */
static void cpu_model_name(char *buf, size_t size)
{
    char line[512];
    snprintf(buf, size, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        colon += 1 + strspn(colon + 1, " \t");
        colon[strcspn(colon, "\n")] = '\0';
        if (*colon)
            snprintf(buf, size, "%s", colon);
        break;
    }
    fclose(f);
}

device *cpu_device_create(void)
{
    device *dev = calloc(1, sizeof(*dev));
    if (!dev)
        return NULL;
    char model[160];
    cpu_model_name(model, sizeof(model));
    dev->cls = &cpu_device_class;
    dev->info.index = VKML_DEVICE_CPU;
    int cores = sched_core_count();
    snprintf(dev->info.name, sizeof(dev->info.name), "%s (%s, %d core%s)", model,
             onednn_enabled() ? onednn_version() : "vkml C kernels", cores, cores == 1 ? "" : "s");
    snprintf(dev->info.vendor, sizeof(dev->info.vendor), "vkml");
    dev->info.type = VKML_DEVICE_TYPE_CPU;
    dev->info.irq_cpu = -1;
    dev->host_share_align = CPU_ALIGNMENT;
    dev->view_align = CPU_ALIGNMENT;
    dev->channels_last = onednn_enabled();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    dev->info.memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    return dev;
}

static vkml_status cpu_kind_open(const vkml_context_params *params, void **handle, vkml_error *err)
{
    (void)params;
    *handle = cpu_device_create();
    return *handle
               ? VKML_OK
               : vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating the CPU device");
}

static int cpu_kind_count(const void *handle)
{
    return handle ? 1 : 0;
}

static device *cpu_kind_get(void *handle, int i)
{
    return i == 0 ? handle : NULL;
}

static void cpu_kind_close(void **handle)
{
    device *dev = *handle;
    if (dev)
        dev->cls->destroy(dev);
    *handle = NULL;
}

static bool cpu_kind_kernel_for(const op_def *op, uint32_t *dtypes)
{
    const cpu_kernel *k = cpu_kernel_for(op);
    *dtypes = k ? k->dtypes : 0;
    return k != NULL;
}

static bool cpu_has_kernel(const op_def *op)
{
    return cpu_kernel_for(op) != NULL;
}

static const char *cpu_kind_library_for(const op_def *op)
{
    return onednn_enabled() ? onednn_op_forms(op) : NULL;
}

static const op_host_runner cpu_host_runner = {
    .has_kernel = cpu_has_kernel, .run = cpu_run_node, .parallel_for = sched_parallel_for};

const device_kind cpu_device_kind = {
    .name = "CPU",
    .host = true,
    .open = cpu_kind_open,
    .count = cpu_kind_count,
    .get = cpu_kind_get,
    .close = cpu_kind_close,
    .kernel_for = cpu_kind_kernel_for,
    .library_for = cpu_kind_library_for,
    .host_runner = &cpu_host_runner,
};
