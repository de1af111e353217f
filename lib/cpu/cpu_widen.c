/* Float kernels over float16/bfloat16 tensors (cpu_widen.h). */
#include "cpu/cpu_widen.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <stdlib.h>
#include <string.h>

static bool is_half(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT16 || t == VKML_DTYPE_BFLOAT16;
}

/* A float copy of a half tensor (convert: its data), or NULL on out of memory. */
static float *widen(const graph_value *v, const void *data, bool convert)
{
    size_t count = vkml_tensor_element_count(v->rank, v->dims), bytes;
    if (!vkml_mul_size(count ? count : 1, sizeof(float), &bytes))
        return NULL;
    float *f = malloc(bytes);
    for (size_t i = 0; f && convert && i < count; i++)
        f[i] = (float)cpu_load_f64(data, v->dtype, (int64_t)i);
    return f;
}

vkml_status cpu_run_widened(const op_cpu_args *args,
                            vkml_status (*fn)(const op_cpu_args *args, vkml_error *err),
                            vkml_error *err)
{
    const graph_node *node = args->node;
    int n_values = 0;
    for (int i = 0; i < node->n_inputs; i++)
        n_values = node->inputs[i] >= n_values ? node->inputs[i] + 1 : n_values;
    for (int i = 0; i < node->n_outputs; i++)
        n_values = node->outputs[i] >= n_values ? node->outputs[i] + 1 : n_values;
    graph_value *values = malloc(sizeof(graph_value) * (size_t)(n_values ? n_values : 1));
    const void **in = calloc((size_t)node->n_inputs + 1, sizeof(void *));
    void **out = calloc((size_t)node->n_outputs + 1, sizeof(void *));
    vkml_status st = VKML_OK;
    if (!values || !in || !out) {
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: no memory for float copies",
                       node->op_type);
        goto done;
    }
    memcpy(values, args->values, sizeof(graph_value) * (size_t)n_values);
    for (int i = 0; i < node->n_inputs && !st; i++) {
        int v = node->inputs[i];
        in[i] = args->in[i];
        /* args->values, not the copy: a value read twice (MatMul(x, x)) is widened twice. */
        if (v >= 0 && args->in[i] && is_half(args->values[v].dtype)) {
            if (!(in[i] = widen(&args->values[v], args->in[i], true)))
                st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: no memory", node->op_type);
            values[v].dtype = VKML_DTYPE_FLOAT;
        }
    }
    for (int i = 0; i < node->n_outputs && !st; i++) {
        int v = node->outputs[i];
        out[i] = args->out[i];
        if (v >= 0 && args->out[i] && is_half(args->values[v].dtype)) {
            if (!(out[i] = widen(&args->values[v], NULL, false)))
                st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: no memory", node->op_type);
            values[v].dtype = VKML_DTYPE_FLOAT;
        }
    }
    if (!st) {
        op_cpu_args wide = {.values = values, .node = node, .in = in, .out = out};
        st = fn(&wide, err);
    }
    for (int i = 0; i < node->n_outputs; i++) {
        int v = node->outputs[i];
        if (v < 0 || !out[i] || out[i] == args->out[i])
            continue;
        const graph_value *o = &args->values[v];
        size_t count = vkml_tensor_element_count(o->rank, o->dims);
        for (size_t e = 0; !st && e < count; e++)
            cpu_store_f64(args->out[i], o->dtype, (int64_t)e, ((float *)out[i])[e]);
        free(out[i]);
    }
    for (int i = 0; i < node->n_inputs; i++)
        if (in[i] != args->in[i])
            free((void *)in[i]);
done:
    free(values);
    free(in);
    free(out);
    return st;
}
