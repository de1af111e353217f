#include "ops/window.h"
#include "ops/op.h"

#include <string.h>

/* Largest kernel, stride, dilation, pad or spatial size accepted: keeps every size
 * computation far from int64 overflow. */
#define WINDOW_MAX_EXTENT ((int64_t)1 << 31)

vkml_status window_read_ints(const graph_node *node, const char *name, int max, int64_t min,
                             int64_t *out, int *count, vkml_error *err)
{
    size_t n;
    const int64_t *v = graph_attr_ints(node, name, &n);
    *count = 0;
    if (!v) {
        if (graph_node_attr(node, name))
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "attribute '%s' must be ints", name);
        return VKML_OK;
    }
    if (n > (size_t)max)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "attribute '%s' has %zu values, at most %d",
                         name, n, max);
    for (size_t i = 0; i < n; i++) {
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
    *count = (int)n;
    return VKML_OK;
}

vkml_status window_attrs_parse(const graph_node *node, window_attrs *a, vkml_error *err)
{
    static const op_attr_spec specs[] = {{"auto_pad", GRAPH_ATTR_STRING}};
    static const char *const pads[] = {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"};
    vkml_status st;
    int s = OP_MAX_SPATIAL;
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)) ||
        (st = window_read_ints(node, "kernel_shape", s, 1, a->kernel, &a->n_kernel, err)) ||
        (st = window_read_ints(node, "strides", s, 1, a->strides, &a->n_strides, err)) ||
        (st = window_read_ints(node, "dilations", s, 1, a->dilations, &a->n_dilations, err)) ||
        (st = window_read_ints(node, "pads", 2 * s, 0, a->pads, &a->n_pads, err)))
        return st;
    const char *auto_pad = graph_attr_string(node, "auto_pad", "NOTSET");
    a->auto_pad = WINDOW_NOTSET;
    for (int i = 1; i < 4; i++)
        if (strcmp(auto_pad, pads[i]) == 0)
            a->auto_pad = (window_auto_pad)i;
    if (a->auto_pad == WINDOW_NOTSET && auto_pad[0] && strcmp(auto_pad, "NOTSET") != 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attribute 'auto_pad' value '%s' is "
                         "not NOTSET, VALID, SAME_UPPER or SAME_LOWER",
                         auto_pad);
    return VKML_OK;
}

/* Counts of the attributes for `spatial` dims: absent or exact. */
static vkml_status check_counts(const window_attrs *a, int spatial, vkml_error *err)
{
    const struct {
        const char *name;
        int count, want;
    } c[] = {{"strides", a->n_strides, spatial},
             {"dilations", a->n_dilations, spatial},
             {"pads", a->n_pads, 2 * spatial}};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(c); i++)
        if (c[i].count && c[i].count != c[i].want)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "attribute '%s' has %d values, expected %d", c[i].name, c[i].count,
                             c[i].want);
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

vkml_status window_params_parse(const window_attrs *a, int opset, int spatial, const int64_t *in,
                                const int64_t *kernel, bool ceil_mode, bool allow_dilations,
                                window_params *w, vkml_error *err)
{
    memset(w, 0, sizeof(*w));
    if (spatial < 1 || spatial > OP_MAX_SPATIAL)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%d spatial dimensions are not supported",
                         spatial);
    vkml_status st = check_counts(a, spatial, err);
    if (st)
        return st;
    w->spatial = spatial;
    bool valid = a->auto_pad == WINDOW_VALID, upper = a->auto_pad == WINDOW_SAME_UPPER;
    bool lower = a->auto_pad == WINDOW_SAME_LOWER;
    if (a->auto_pad != WINDOW_NOTSET && a->n_pads)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "attributes 'pads' and 'auto_pad' %s cannot be used together",
                         upper   ? "SAME_UPPER"
                         : lower ? "SAME_LOWER"
                                 : "VALID");
    const int64_t zeros[2 * OP_MAX_SPATIAL] = {0};
    const int64_t *pads = a->n_pads ? a->pads : zeros;
    for (int d = 0; d < spatial; d++) {
        w->strides[d] = a->n_strides ? a->strides[d] : 1;
        w->dilations[d] = a->n_dilations ? a->dilations[d] : 1;
    }
    for (int d = 0; d < spatial; d++) {
        if (!allow_dilations && w->dilations[d] != 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "attribute 'dilations' is not defined at opset %d", opset);
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
