/* Shape, Size, Range, OneHot, NonZero and Compress on the CPU (the ops of ops/generate.c
 * that are not movement steps). */
#include "cpu/cpu_kernels.h"
#include "ops/movement.h"

#include <string.h>

static const graph_value *input(const op_cpu_args *args, int i)
{
    return &args->values[args->node->inputs[i]];
}

static const graph_value *output(const op_cpu_args *args, int i)
{
    return &args->values[args->node->outputs[i]];
}

/* Reads the input's shape only: its data may be absent while shapes are inferred. */
vkml_status cpu_shape(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_value *x = input(args, 0);
    const shape_params *p = args->node->params;
    int64_t start = p->start < 0 ? p->start + x->rank : p->start;
    start = start < 0 ? 0 : start > x->rank ? x->rank : start;
    int64_t *y = args->out[0];
    for (int64_t i = 0; i < output(args, 0)->dims[0]; i++)
        y[i] = x->dims[start + i];
    return VKML_OK;
}

vkml_status cpu_size(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_value *x = input(args, 0);
    *(int64_t *)args->out[0] = (int64_t)vkml_tensor_element_count(x->rank, x->dims);
    return VKML_OK;
}

/* start + i * delta in the output type (integers wrap as two's complement). */
vkml_status cpu_range(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_value *y = output(args, 0);
    vkml_dtype t = y->dtype;
    size_t es = vkml_dtype_size(t);
    bool is_float = t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_DOUBLE || t == VKML_DTYPE_FLOAT16 ||
                    t == VKML_DTYPE_BFLOAT16;
    char *out = args->out[0];
    for (int64_t i = 0; i < y->dims[0]; i++) {
        uint64_t bits;
        if (is_float) {
            double v = mv_element_to_double(t, args->in[0]) +
                       (double)i * mv_element_to_double(t, args->in[2]);
            bits = mv_element_from_double(t, v);
        } else {
            bits = (uint64_t)mv_element_to_int(t, args->in[0]) +
                   (uint64_t)i * (uint64_t)mv_element_to_int(t, args->in[2]);
        }
        memcpy(out + (size_t)i * es, &bits, es);
    }
    return VKML_OK;
}

/* out[o, d, i] = on when indices[o, i] (negative counts from the end) is d, else off. */
vkml_status cpu_onehot(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_value *x = input(args, 0), *y = output(args, 0);
    int axis = 0;
    mv_axis(args->node, "axis", ((const axis_params *)args->node->params)->axis, y->rank, &axis,
            err);
    int64_t depth = y->dims[axis], outer = 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= y->dims[d];
    for (int d = axis + 1; d < y->rank; d++)
        inner *= y->dims[d];
    size_t es = vkml_dtype_size(y->dtype), xs = vkml_dtype_size(x->dtype);
    const char *values = args->in[2], *xd = args->in[0];
    char *out = args->out[0];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t d = 0; d < depth; d++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t v = mv_element_to_int(x->dtype, xd + (size_t)(o * inner + i) * xs);
                v = v < 0 ? v + depth : v;
                size_t at = (size_t)((o * depth + d) * inner + i) * es;
                memcpy(out + at, values + (v == d ? es : 0), es);
            }
    return VKML_OK;
}

static bool is_nonzero(vkml_dtype t, const char *p)
{
    return mv_element_to_double(t, p) != 0; /* NaN is nonzero */
}

/* Coordinates of the nonzero elements, [rank, count], row-major order; the extent goes to
 * out_dims (OP_DATA_DEPENDENT). */
vkml_status cpu_nonzero(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    const graph_value *x = input(args, 0);
    size_t es = vkml_dtype_size(x->dtype), n = vkml_tensor_element_count(x->rank, x->dims);
    const char *xd = args->in[0];
    int64_t count = 0, found = 0, idx[VKML_MAX_RANK] = {0};
    for (size_t i = 0; i < n; i++)
        count += is_nonzero(x->dtype, xd + i * es);
    int64_t *out = args->out[0];
    for (size_t i = 0; i < n; i++) {
        if (is_nonzero(x->dtype, xd + i * es)) {
            for (int d = 0; d < x->rank; d++)
                out[d * count + found] = idx[d];
            found++;
        }
        cpu_index_next(idx, x->dims, x->rank);
    }
    if (args->out_dims) {
        args->out_dims[0][0] = x->rank;
        args->out_dims[0][1] = count;
    }
    return VKML_OK;
}

/* The slices along the axis (or elements of the flattened input) the condition selects;
 * the extent goes to out_dims (OP_DATA_DEPENDENT). */
vkml_status cpu_compress(const op_cpu_args *args, vkml_error *err)
{
    const compress_params *p = args->node->params;
    const graph_value *x = input(args, 0), *c = input(args, 1), *y = output(args, 0);
    int axis = 0;
    int64_t outer = 1, inner = 1, n = (int64_t)vkml_tensor_element_count(x->rank, x->dims);
    if (p->has_axis) {
        mv_axis(args->node, "axis", p->axis, x->rank, &axis, err);
        n = x->dims[axis];
        for (int d = 0; d < axis; d++)
            outer *= x->dims[d];
        for (int d = axis + 1; d < x->rank; d++)
            inner *= x->dims[d];
    }
    int64_t len = c->dims[0], kept = 0;
    const uint8_t *cond = args->in[1];
    for (int64_t i = 0; i < len; i++)
        kept += cond[i] != 0;
    size_t es = vkml_dtype_size(x->dtype), run = (size_t)inner * es;
    char *out = args->out[0];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < len && i < n; i++)
            if (cond[i]) {
                memcpy(out, (const char *)args->in[0] + (size_t)(o * n + i) * run, run);
                out += run;
            }
    if (args->out_dims) {
        memcpy(args->out_dims[0], y->dims, sizeof(args->out_dims[0]));
        args->out_dims[0][p->has_axis ? axis : 0] = kept;
    }
    return VKML_OK;
}
