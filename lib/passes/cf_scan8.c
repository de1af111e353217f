/* Scan before opset 9 (cf_body.h: cf_run_batched): input 0 is sequence_lens, and every
 * state, scan input and output has a batch dim first. Each batch element is a Scan of its
 * own over the elements' dim 0, run (or probed) by the opset 9 code with the node's inputs
 * replaced by the element's slices, which are blocks of the inputs: no copies. */
#include "ops/control.h"
#include "passes/cf_body.h"

#include <string.h>

/* Element b of v along its first dim: a view of v's bytes (none when v has no data). */
static void batch_slice(const graph_value *v, int64_t b, graph_value *out)
{
    *out = *v;
    out->rank = v->rank - 1;
    memmove(out->dims, v->dims + 1, sizeof(int64_t) * (size_t)out->rank);
    size_t bytes = 0;
    vkml_tensor_bytes(out->dtype, out->rank, out->dims, &bytes);
    out->data = v->data ? (const uint8_t *)v->data + (size_t)b * bytes : NULL;
    out->data_size = bytes;
}

/* The node's states and scan inputs: each once, each with a batch dim of `batch`, none
 * also read by the body from the outer scope (it would see the slice). */
static vkml_status check_inputs(const graph_value *values, const graph_node *n, int64_t *batch,
                                vkml_error *err)
{
    *batch = -1;
    for (int k = 1; k < n->n_inputs; k++) {
        const graph_value *v = &values[n->inputs[k]];
        for (int j = 1; j < k; j++)
            if (n->inputs[j] == n->inputs[k])
                return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                                 "Scan (opset 8): '%s' is given twice, or also read by the body",
                                 v->name);
        if (k >= cf_explicit_inputs(n))
            continue;
        size_t bits = vkml_dtype_bits(v->dtype);
        if (v->rank < 1 || (*batch >= 0 && v->dims[0] != *batch) || bits == 0 || bits % 8)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "Scan (opset 8): '%s' needs the batch dim of the others and a "
                             "whole-byte type",
                             v->name);
        *batch = v->dims[0];
    }
    if (*batch < 1)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Scan (opset 8): a batch of %lld",
                         (long long)*batch);
    return VKML_OK;
}

/* sequence_lens, when given with data: every sequence runs to the full length. */
static vkml_status check_lengths(const graph_value *values, const graph_node *n, int64_t length,
                                 vkml_error *err)
{
    const graph_value *v = n->inputs[0] >= 0 ? &values[n->inputs[0]] : NULL;
    if (!v || !v->data)
        return VKML_OK;
    size_t count = vkml_tensor_element_count(v->rank, v->dims);
    for (size_t i = 0; v->dtype == VKML_DTYPE_INT64 && i < count; i++)
        if (((const int64_t *)v->data)[i] != length)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "Scan (opset 8): sequence %zu has length %lld of %lld; vkml runs "
                             "every sequence to the full length",
                             i, (long long)((const int64_t *)v->data)[i], (long long)length);
    return v->dtype == VKML_DTYPE_INT64
               ? VKML_OK
               : vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Scan: sequence_lens must be int64");
}

/* Output o of batch element b: the first fixes the shape and takes the buffer. */
static vkml_status gather_output(const graph_node *n, graph_value *out, int64_t b, int64_t batch,
                                 graph_value *first, vkml_arena *arena, vkml_error *err)
{
    size_t bytes = 0;
    vkml_tensor_bytes(out->dtype, out->rank, out->dims, &bytes);
    if (b == 0) {
        *first = *out;
        first->data = out->data ? vkml_arena_alloc(arena, bytes * (size_t)batch + 1) : NULL;
        if (out->data && !first->data)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory running a Scan");
    } else if (out->dtype != first->dtype || out->rank != first->rank ||
               memcmp(out->dims, first->dims, sizeof(int64_t) * (size_t)out->rank) != 0) {
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: output '%s' has another shape for batch element %lld", n->op_type,
                         out->name, (long long)b);
    }
    if (first->data && out->data)
        memcpy((uint8_t *)first->data + (size_t)b * bytes, out->data, bytes);
    return VKML_OK;
}

vkml_status cf_run_batched(const cf_env *env, graph_value *values, const graph_node *n,
                           vkml_arena *arena, cf_scan_fn scan, vkml_error *err)
{
    int given = cf_explicit_inputs(n);
    int64_t batch;
    graph_value saved[given + 1], first[n->n_outputs + 1];
    vkml_status st = check_inputs(values, n, &batch, err);
    for (int k = 1; k < given; k++)
        saved[k] = values[n->inputs[k]];
    int64_t runs = env->probe && batch > 0 ? 1 : batch; /* a probe: the shapes of one */
    for (int64_t b = 0; b < runs && st == VKML_OK; b++) {
        for (int k = 1; k < given; k++)
            batch_slice(&saved[k], b, &values[n->inputs[k]]);
        const cf_params *p = n->params;
        const graph_value *scanned = &values[n->inputs[given - (int)p->num_scan_inputs]];
        if ((st = check_lengths(values, n, scanned->rank ? scanned->dims[0] : 0, err)) ||
            (st = scan(env, values, n, arena, err)))
            break;
        for (int o = 0; o < n->n_outputs && st == VKML_OK; o++)
            if (n->outputs[o] >= 0)
                st = gather_output(n, &values[n->outputs[o]], b, batch, &first[o], arena, err);
    }
    for (int k = 1; k < given && batch >= 0; k++)
        values[n->inputs[k]] = saved[k];
    for (int o = 0; o < n->n_outputs && st == VKML_OK; o++) {
        graph_value *out = graph_node_output(values, n, o);
        if (!out)
            continue;
        if (first[o].rank + 1 > VKML_MAX_RANK)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Scan: output '%s' would have rank %d",
                             out->name, first[o].rank + 1);
        out->rank = first[o].rank + 1;
        out->dims[0] = batch;
        memcpy(out->dims + 1, first[o].dims, sizeof(int64_t) * (size_t)first[o].rank);
        out->data = first[o].data;
        vkml_tensor_bytes(out->dtype, out->rank, out->dims, &out->data_size);
    }
    return st;
}
