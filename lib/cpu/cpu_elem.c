/* Element access of any dtype (cpu_elem.h). */
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <stdlib.h>
#include <string.h>

bool cpu_dtype_is_float(vkml_dtype dtype)
{
    return dtype == VKML_DTYPE_FLOAT || dtype == VKML_DTYPE_DOUBLE ||
           dtype == VKML_DTYPE_FLOAT16 || dtype == VKML_DTYPE_BFLOAT16;
}

double cpu_load_f64(vkml_dtype dtype, const void *data, int64_t i)
{
    switch (dtype) {
    case VKML_DTYPE_FLOAT:
        return ((const float *)data)[i];
    case VKML_DTYPE_DOUBLE:
        return ((const double *)data)[i];
    case VKML_DTYPE_FLOAT16:
        return vkml_half_to_float(((const uint16_t *)data)[i]);
    case VKML_DTYPE_BFLOAT16:
        return vkml_bfloat16_to_float(((const uint16_t *)data)[i]);
    case VKML_DTYPE_UINT64:
        return (double)((const uint64_t *)data)[i];
    default:
        return (double)cpu_load_i64(dtype, data, i);
    }
}

int64_t cpu_load_i64(vkml_dtype dtype, const void *data, int64_t i)
{
    switch (dtype) {
    case VKML_DTYPE_INT8:
        return ((const int8_t *)data)[i];
    case VKML_DTYPE_UINT8:
    case VKML_DTYPE_BOOL:
        return ((const uint8_t *)data)[i];
    case VKML_DTYPE_INT16:
        return ((const int16_t *)data)[i];
    case VKML_DTYPE_UINT16:
        return ((const uint16_t *)data)[i];
    case VKML_DTYPE_INT32:
        return ((const int32_t *)data)[i];
    case VKML_DTYPE_UINT32:
        return ((const uint32_t *)data)[i];
    case VKML_DTYPE_INT64:
    case VKML_DTYPE_UINT64:
        return ((const int64_t *)data)[i];
    default:
        return (int64_t)cpu_load_f64(dtype, data, i);
    }
}

void cpu_store_i64(vkml_dtype dtype, void *data, int64_t i, int64_t v)
{
    switch (dtype) {
    case VKML_DTYPE_INT8:
    case VKML_DTYPE_UINT8:
    case VKML_DTYPE_BOOL:
        ((uint8_t *)data)[i] = (uint8_t)v;
        break;
    case VKML_DTYPE_INT16:
    case VKML_DTYPE_UINT16:
        ((uint16_t *)data)[i] = (uint16_t)v;
        break;
    case VKML_DTYPE_INT32:
    case VKML_DTYPE_UINT32:
        ((uint32_t *)data)[i] = (uint32_t)v;
        break;
    case VKML_DTYPE_INT64:
    case VKML_DTYPE_UINT64:
        ((int64_t *)data)[i] = v;
        break;
    default:
        cpu_store_f64(dtype, data, i, (double)v);
    }
}

void cpu_store_f64(vkml_dtype dtype, void *data, int64_t i, double v)
{
    switch (dtype) {
    case VKML_DTYPE_FLOAT:
        ((float *)data)[i] = (float)v;
        break;
    case VKML_DTYPE_DOUBLE:
        ((double *)data)[i] = v;
        break;
    case VKML_DTYPE_FLOAT16:
        ((uint16_t *)data)[i] = vkml_half_from_float((float)v);
        break;
    case VKML_DTYPE_BFLOAT16:
        ((uint16_t *)data)[i] = vkml_bfloat16_from_float((float)v);
        break;
    default: {
        /* Out-of-range and NaN conversions are undefined in C: clamp to int64 first. */
        int64_t iv = v != v ? 0 : v >= 9.2233720368547758e18 ? INT64_MAX
                               : v <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)v;
        if (dtype == VKML_DTYPE_UINT64 && v >= 9.2233720368547758e18)
            iv = v >= 1.8446744073709552e19 ? -1 : (int64_t)(uint64_t)v;
        cpu_store_i64(dtype, data, i, iv);
    }
    }
}

void cpu_int_range(vkml_dtype dtype, int64_t *lo, int64_t *hi)
{
    size_t bits = vkml_dtype_size(dtype) * 8;
    bool is_signed = dtype == VKML_DTYPE_INT8 || dtype == VKML_DTYPE_INT16 ||
                     dtype == VKML_DTYPE_INT32 || dtype == VKML_DTYPE_INT64;
    if (bits >= 64) {
        *lo = is_signed ? INT64_MIN : 0;
        *hi = INT64_MAX;
    } else if (is_signed) {
        *lo = -((int64_t)1 << (bits - 1));
        *hi = ((int64_t)1 << (bits - 1)) - 1;
    } else {
        *lo = 0;
        *hi = ((int64_t)1 << bits) - 1;
    }
}

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
        f[i] = (float)cpu_load_f64(v->dtype, data, (int64_t)i);
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
        if (v >= 0 && args->in[i] && is_half(values[v].dtype)) {
            if (!(in[i] = widen(&values[v], args->in[i], true)))
                st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: no memory", node->op_type);
            values[v].dtype = VKML_DTYPE_FLOAT;
        }
    }
    for (int i = 0; i < node->n_outputs && !st; i++) {
        int v = node->outputs[i];
        out[i] = args->out[i];
        if (v >= 0 && args->out[i] && is_half(values[v].dtype)) {
            if (!(out[i] = widen(&values[v], NULL, false)))
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
            cpu_store_f64(o->dtype, args->out[i], (int64_t)e, ((float *)out[i])[e]);
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
