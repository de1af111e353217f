#include "plan/context.h"
#include "onnx/model.h"
#include "ops/op.h"
#include "plan/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool type_is_real_gpu(vkml_device_type t)
{
    return t == VKML_DEVICE_TYPE_DISCRETE_GPU || t == VKML_DEVICE_TYPE_INTEGRATED_GPU;
}

/* The fastest device the machine has: its first real GPU (discrete or integrated), else
 * vkml's own CPU device, which runs conv models 8-14x faster than a Vulkan device on the
 * CPU (lavapipe); such a device, or a virtual one, is used only when asked for. */
static int pick_default_device(const vkml_context *ctx)
{
    for (int i = 0; i < ctx->n_devices; i++)
        if (type_is_real_gpu(ctx->devices[i]->info.type))
            return i;
    return VKML_DEVICE_CPU;
}

/* Adds kind k's devices; its one device when it is the host kind. */
static vkml_status add_kind_devices(vkml_context *ctx, const device_kind *kind, void *handle,
                                    vkml_error *err)
{
    int n = kind->count(handle);
    if (kind->host) {
        if (ctx->host || n != 1)
            return vkml_fail(err, VKML_ERROR_DEVICE, "device kind '%s': a second host device",
                             kind->name);
        ctx->host = kind->get(handle, 0);
        ctx->host->info.index = VKML_DEVICE_CPU;
        ctx->host_runner = kind->host_runner;
        return VKML_OK;
    }
    device **grown = realloc(ctx->devices, sizeof(device *) * (size_t)(ctx->n_devices + n + 1));
    if (!grown)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory listing devices");
    ctx->devices = grown;
    for (int i = 0; i < n; i++) {
        device *dev = kind->get(handle, i);
        dev->info.index = ctx->n_devices;
        ctx->devices[ctx->n_devices++] = dev;
    }
    return VKML_OK;
}

/* Opens every kind of the registry, in its order. */
static vkml_status open_devices(vkml_context *ctx, const vkml_context_params *params,
                                vkml_error *err)
{
    int n;
    const device_kind *const *kinds = device_kinds(&n);
    for (int k = 0; k < n; k++) {
        void *handle = NULL;
        vkml_status st = kinds[k]->open(params, &handle, err);
        if (st != VKML_OK)
            return st;
        ctx->kinds[ctx->n_kinds] = kinds[k];
        ctx->kind_handles[ctx->n_kinds++] = handle;
        if ((st = add_kind_devices(ctx, kinds[k], handle, err)) != VKML_OK)
            return st;
    }
    if (!ctx->host)
        return vkml_fail(err, VKML_ERROR_DEVICE, "the device registry has no host kind");
    return VKML_OK;
}

static void context_free(vkml_context *ctx);

vkml_status vkml_context_create(const vkml_context_params *params, vkml_context **out,
                                vkml_error *err)
{
    static const vkml_context_params defaults = {0};
    if (!out)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "vkml_context_create: out is NULL");
    *out = NULL;
    if (!params)
        params = &defaults;
    vkml_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory creating a context");
    ctx->log = (log_sink){.callback = params->log_callback,
                          .user = params->log_user,
                          .level = params->log_level_set ? (int)params->log_level : -1};
    /* What the devices' discovery logs goes to the context's sink. */
    const log_sink *outer = log_scope_enter(&ctx->log);
    vkml_status st = open_devices(ctx, params, err);
    log_scope_leave(outer);
    if (st != VKML_OK) {
        context_free(ctx);
        return st;
    }
    ctx->default_device = pick_default_device(ctx);
    atomic_init(&ctx->refs, 1);
    *out = ctx;
    return VKML_OK;
}

static void context_free(vkml_context *ctx)
{
    const log_sink *outer = log_scope_enter(&ctx->log);
    /* Later kinds first: they may use what earlier ones hold. */
    for (int k = ctx->n_kinds - 1; k >= 0; k--)
        ctx->kinds[k]->close(&ctx->kind_handles[k]);
    log_scope_leave(outer);
    free(ctx->devices);
    free(ctx);
}

vkml_context *context_ref(vkml_context *ctx)
{
    /* Relaxed: taking a reference orders nothing; the caller already holds one. */
    atomic_fetch_add_explicit(&ctx->refs, 1, memory_order_relaxed);
    return ctx;
}

void context_unref(vkml_context *ctx)
{
    /* acq_rel: whoever drops the last reference sees every other holder's use of the
     * devices finished before it frees them. */
    if (ctx && atomic_fetch_sub_explicit(&ctx->refs, 1, memory_order_acq_rel) == 1)
        context_free(ctx);
}

void vkml_context_destroy(vkml_context **ctxp)
{
    if (!ctxp || !*ctxp)
        return;
    vkml_context *ctx = *ctxp;
    *ctxp = NULL;
    /* A half-made context (creation failed) has no sessions and refs 0. */
    int refs = atomic_load_explicit(&ctx->refs, memory_order_relaxed);
    const log_sink *outer = log_scope_enter(&ctx->log);
    if (refs > 1)
        VKML_LOGW("context destroyed while %d session(s) still use it: its devices stay open "
                  "until the last of them is destroyed",
                  refs - 1);
    log_scope_leave(outer);
    if (refs == 0)
        context_free(ctx);
    else
        context_unref(ctx);
}

int vkml_context_device_count(const vkml_context *ctx)
{
    return ctx ? ctx->n_devices : 0;
}

int vkml_context_default_device(const vkml_context *ctx)
{
    return ctx ? ctx->default_device : VKML_DEVICE_CPU;
}

device *context_device(vkml_context *ctx, int index)
{
    if (index == VKML_DEVICE_DEFAULT)
        index = ctx->default_device;
    if (index == VKML_DEVICE_CPU)
        return ctx->host;
    if (index < 0 || index >= ctx->n_devices)
        return NULL;
    return ctx->devices[index];
}

bool context_device_is_real_gpu(vkml_context *ctx, int index)
{
    device *dev = index >= 0 ? context_device(ctx, index) : NULL;
    return dev && type_is_real_gpu(dev->info.type);
}

vkml_status vkml_context_device_info(const vkml_context *ctx, int index, vkml_device_info *info,
                                     vkml_error *err)
{
    if (!ctx || !info)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_context_device_info: NULL argument");
    device *dev = context_device((vkml_context *)ctx, index);
    if (!dev)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "no device %d (this machine has %d Vulkan device(s) and the CPU)", index,
                         vkml_context_device_count(ctx));
    *info = dev->info;
    return VKML_OK;
}

const char *vkml_device_type_name(vkml_device_type type)
{
    switch (type) {
    case VKML_DEVICE_TYPE_CPU: return "CPU";
    case VKML_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VKML_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VKML_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VKML_DEVICE_TYPE_VULKAN_CPU: return "Vulkan on CPU";
    case VKML_DEVICE_TYPE_OTHER: return "other";
    }
    return "unknown";
}

static vkml_status parse_device(const vkml_context *ctx, const char *text, int *index,
                                vkml_error *err)
{
    if (!ctx || !text || !index)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_context_parse_device: NULL argument");
    if (strcmp(text, "cpu") == 0) {
        *index = VKML_DEVICE_CPU;
        return VKML_OK;
    }
    if (strcmp(text, "default") == 0) {
        *index = ctx->default_device;
        return VKML_OK;
    }
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < 0 || value >= vkml_context_device_count(ctx))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "unknown device '%s': use 'cpu', 'default' or a GPU index from 0 to %d",
                         text, vkml_context_device_count(ctx) - 1);
    *index = (int)value;
    return VKML_OK;
}

static vkml_status add_device_index(int index, int *indices, size_t cap, size_t *n,
                                    const char *text, vkml_error *err)
{
    for (size_t i = 0; i < *n; i++)
        if (indices[i] == index)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "device set '%s' names a device twice", text);
    if (*n >= cap)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "device set '%s' has more than %zu devices", text, cap);
    indices[(*n)++] = index;
    return VKML_OK;
}

vkml_status vkml_context_parse_device(const vkml_context *ctx, const char *text, int *index,
                                      vkml_error *err)
{
    const log_sink *outer = log_scope_enter(ctx ? &ctx->log : NULL);
    vkml_status st = parse_device(ctx, text, index, err);
    log_scope_leave(outer);
    return st;
}

static vkml_status parse_devices(const vkml_context *ctx, const char *text, int *indices,
                                 size_t cap, size_t *n, vkml_error *err)
{
    if (!ctx || !text || !indices || !n)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "vkml_context_parse_devices: NULL argument");
    *n = 0;
    if (strcmp(text, "all") == 0) {
        int gpus = vkml_context_device_count(ctx);
        for (int i = 0; i < gpus || (i == 0 && gpus == 0); i++) {
            vkml_status st =
                add_device_index(gpus ? i : VKML_DEVICE_CPU, indices, cap, n, text, err);
            if (st)
                return st;
        }
        return VKML_OK;
    }
    const char *item = text;
    for (;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma ? (size_t)(comma - item) : strlen(item);
        char one[32];
        if (len == 0 || len >= sizeof(one))
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "device set '%s': an empty or overlong entry", text);
        memcpy(one, item, len);
        one[len] = '\0';
        int index;
        vkml_status st = parse_device(ctx, one, &index, err);
        if (!st)
            st = add_device_index(index, indices, cap, n, text, err);
        if (st)
            return st;
        if (!comma)
            return VKML_OK;
        item = comma + 1;
    }
}

vkml_status vkml_context_parse_devices(const vkml_context *ctx, const char *text, int *indices,
                                       size_t cap, size_t *n, vkml_error *err)
{
    const log_sink *outer = log_scope_enter(ctx ? &ctx->log : NULL);
    vkml_status st = parse_devices(ctx, text, indices, cap, n, err);
    log_scope_leave(outer);
    return st;
}

/* A control-flow node the session inlines or folds becomes what the devices run; one it
 * keeps (its outputs' extents are the run's: data_dependent) runs its subgraphs on the
 * host, in the dynamic tail. */
static bool control_flow_runs_on(const vkml_context *ctx, int index, const graph_value *values,
                                 const graph_node *n, char *why, size_t why_size)
{
    bool kept = false;
    for (int o = 0; o < n->n_outputs; o++)
        kept |= n->outputs[o] >= 0 && values[n->outputs[o]].data_dependent;
    if (!kept || index == ctx->host->info.index)
        return true;
    if (why_size)
        snprintf(why, why_size,
                 "%s runs its subgraphs on the host (the dynamic tail): it is no plan-time "
                 "constant, nor an If of a known condition",
                 n->op_type);
    return false;
}

bool vkml_context_device_supports_node(vkml_context *ctx, int index, const vkml_model *model,
                                       size_t node, char *why, size_t why_size)
{
    if (why_size)
        why[0] = '\0';
    device *dev = ctx ? context_device(ctx, index) : NULL;
    if (!dev || !model || node >= (size_t)model->graph->n_nodes) {
        if (why_size)
            snprintf(why, why_size, "no such device or node");
        return false;
    }
    const graph *g = model->graph;
    const graph_node *n = &g->nodes[node];
    if (!n->op) {
        if (why_size && n->unsupported)
            snprintf(why, why_size, "%s", n->unsupported);
        else if (why_size)
            snprintf(why, why_size, "vkml does not implement %s at opset %d", n->op_type, n->opset);
        return false;
    }
    /* The node's shapes come from the model's probe (inferred once per model); a node at
     * or after the one where inference stopped has none. */
    const model_probe *probe = model_get_probe(model);
    if (!probe || (int)node >= probe->n_inferred) {
        if (why_size)
            snprintf(why, why_size, "shapes unknown: %s",
                     probe ? probe->error.message : "out of memory");
        return false;
    }
    if (n->op->flags & OP_LOWERED) /* it became tensor ops, which the session places */
        return true;
    if (n->op->flags & OP_CONTROL_FLOW)
        return control_flow_runs_on(ctx, index, probe->values, n, why, why_size);
    return dev->cls->supports_node(dev, probe->values, n, why, why_size);
}
