#include "ops/window.h"
#include "ops/op.h"

#include <string.h>

/* Largest kernel, stride, dilation, pad or spatial size accepted: keeps every size
 * computation far from int64 overflow. */
#define WINDOW_MAX_EXTENT ((int64_t)1 << 31)

/* Reads an INTS attribute of exactly `want` values into out (default when absent). */
static vkml_status read_ints(const graph_node *n, const char *name, size_t want, int64_t dflt,
                             int64_t min, int64_t *out, vkml_error *err)
{
    size_t count;
    const int64_t *v = graph_attr_ints(n, name, &count);
    if (!v) {
        if (graph_node_attr(n, name))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "attribute '%s' must be ints", name);
        for (size_t i = 0; i < want; i++)
            out[i] = dflt;
        return VKML_OK;
    }
    if (count != want)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute '%s' has %zu values, expected %zu", name, count, want);
    for (size_t i = 0; i < want; i++) {
        if (v[i] > WINDOW_MAX_EXTENT)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "attribute '%s' value %lld is larger than %lld", name, (long long)v[i],
                             (long long)WINDOW_MAX_EXTENT);
        if (v[i] < min)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "attribute '%s' value %lld is below %lld", name, (long long)v[i],
                             (long long)min);
        out[i] = v[i];
    }
    return VKML_OK;
}

static int64_t div_round(int64_t a, int64_t b, bool up)
{
    return up ? (a + b - 1) / b : a / b;
}

/* Explicit pads: the size formula of the ONNX spec; with ceil_mode a last window that
 * would start inside the end padding is dropped (as the ONNX reference and PyTorch do). */
static void explicit_out(window_params *w, int d, int64_t eff, bool ceil_mode)
{
    int64_t span = w->in[d] + w->pads_begin[d] + w->pads_end[d] - eff;
    int64_t out = span < 0 ? 0 : div_round(span, w->strides[d], ceil_mode) + 1;
    if (ceil_mode && out > 0 && (out - 1) * w->strides[d] >= w->in[d] + w->pads_begin[d])
        out--;
    w->out[d] = span < 0 ? 0 : out;
}

/* SAME_*: out = ceil(in / stride), the padding split with the odd element at the end
 * (UPPER) or the beginning (LOWER). */
static void same_pads(window_params *w, int d, int64_t eff, bool upper)
{
    int64_t out = div_round(w->in[d], w->strides[d], true);
    int64_t total = (out - 1) * w->strides[d] + eff - w->in[d];
    if (total < 0)
        total = 0;
    w->pads_begin[d] = upper ? total / 2 : total - total / 2;
    w->pads_end[d] = total - w->pads_begin[d];
    w->out[d] = out;
}

vkml_status window_params_parse(const graph_node *node, int spatial, const int64_t *in,
                                const int64_t *kernel, bool ceil_mode, bool allow_dilations,
                                window_params *w, vkml_error *err)
{
    vkml_status st;
    int64_t pads[2 * OP_MAX_SPATIAL];
    memset(w, 0, sizeof(*w));
    if (spatial < 1 || spatial > OP_MAX_SPATIAL)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%d spatial dimensions are not supported",
                         spatial);
    w->spatial = spatial;
    size_t s = (size_t)spatial;
    static const op_attr_spec specs[] = {{"kernel_shape", GRAPH_ATTR_INTS},
                                         {"auto_pad", GRAPH_ATTR_STRING}};
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)) ||
        (st = read_ints(node, "strides", s, 1, 1, w->strides, err)) ||
        (st = read_ints(node, "dilations", s, 1, 1, w->dilations, err)) ||
        (st = read_ints(node, "pads", 2 * s, 0, 0, pads, err)))
        return st;
    const char *auto_pad = graph_attr_string(node, "auto_pad", "NOTSET");
    bool notset = strcmp(auto_pad, "NOTSET") == 0 || auto_pad[0] == '\0';
    bool valid = strcmp(auto_pad, "VALID") == 0;
    bool upper = strcmp(auto_pad, "SAME_UPPER") == 0;
    bool lower = strcmp(auto_pad, "SAME_LOWER") == 0;
    if (!notset && !valid && !upper && !lower)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'auto_pad' value '%s' is "
                         "not NOTSET, VALID, SAME_UPPER or SAME_LOWER",
                         auto_pad);
    if (!notset && graph_node_attr(node, "pads"))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attributes 'pads' and 'auto_pad' %s cannot be used together", auto_pad);
    for (int d = 0; d < spatial; d++) {
        if (!allow_dilations && w->dilations[d] != 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "attribute 'dilations' is not defined at opset %d", node->opset);
        if (kernel[d] < 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "kernel size %lld must be >= 1",
                             (long long)kernel[d]);
        if (kernel[d] > WINDOW_MAX_EXTENT || in[d] > WINDOW_MAX_EXTENT)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "kernel %lld or input size %lld of spatial dim %d is larger "
                             "than %lld",
                             (long long)kernel[d], (long long)in[d], d,
                             (long long)WINDOW_MAX_EXTENT);
        w->in[d] = in[d];
        w->kernel[d] = kernel[d];
        int64_t eff = (kernel[d] - 1) * w->dilations[d] + 1;
        if (upper || lower) {
            same_pads(w, d, eff, upper);
        } else {
            w->pads_begin[d] = valid ? 0 : pads[d];
            w->pads_end[d] = valid ? 0 : pads[spatial + d];
            explicit_out(w, d, eff, ceil_mode && !valid);
        }
        if (w->out[d] < 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "window %lld (dilation %lld) does not fit spatial dim %d of "
                             "size %lld with pads %lld+%lld",
                             (long long)kernel[d], (long long)w->dilations[d], d, (long long)in[d],
                             (long long)w->pads_begin[d], (long long)w->pads_end[d]);
    }
    return VKML_OK;
}

static int64_t product(const int64_t *v, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

int64_t window_kernel_size(const window_params *w)
{
    return product(w->kernel, w->spatial);
}

int64_t window_out_size(const window_params *w)
{
    return product(w->out, w->spatial);
}

int64_t window_in_size(const window_params *w)
{
    return product(w->in, w->spatial);
}

vkml_status window_check_input(const graph_value *x, const char *op_type, vkml_error *err)
{
    if (x->rank < 3)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "input '%s' has rank %d, %s needs at "
                         "least 3 (N, C, spatial...)",
                         x->name, x->rank, op_type);
    return VKML_OK;
}

int window_output_dims(const window_params *w, int64_t n, int64_t c, int64_t *dims)
{
    dims[0] = n;
    dims[1] = c;
    for (int d = 0; d < w->spatial; d++)
        dims[2 + d] = w->out[d];
    return 2 + w->spatial;
}
