#include "ops/gridsample.h"
#include "ops/op.h"
#include "ops/op_decls.h"

#include <math.h>
#include <string.h>

OP_PARSE_DECL(gridsample_parse)
{
    gridsample_params *p = params;
    static const op_attr_spec specs[] = {{"mode", GRAPH_ATTR_STRING},
                                         {"padding_mode", GRAPH_ATTR_STRING},
                                         {"align_corners", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    const char *mode = graph_attr_string(node, "mode", node->opset >= 20 ? "linear" : "bilinear");
    const char *pad = graph_attr_string(node, "padding_mode", "zeros");
    bool new_names = node->opset >= 20;
    if (strcmp(mode, new_names ? "linear" : "bilinear") == 0)
        p->mode = GRIDSAMPLE_LINEAR;
    else if (strcmp(mode, "nearest") == 0)
        p->mode = GRIDSAMPLE_NEAREST;
    else if (strcmp(mode, new_names ? "cubic" : "bicubic") == 0)
        p->mode = GRIDSAMPLE_CUBIC;
    else
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "GridSample: mode '%s' is not valid at opset %d", mode, node->opset);
    if (strcmp(pad, "zeros") == 0)
        p->padding = GRIDSAMPLE_ZEROS;
    else if (strcmp(pad, "border") == 0)
        p->padding = GRIDSAMPLE_BORDER;
    else if (strcmp(pad, "reflection") == 0)
        p->padding = GRIDSAMPLE_REFLECTION;
    else
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "GridSample: padding_mode '%s' is not valid", pad);
    p->align_corners = graph_attr_int(node, "align_corners", 0) != 0;
    return VKML_OK;
}

/* Reflects x into [lo, hi] by the near border until inside. */
static double reflect(double x, double lo, double hi)
{
    double range = hi - lo;
    if (range <= 0)
        return lo;
    if (x < lo || x > hi) {
        double dx = x < lo ? lo - x : x - hi;
        double n = floor(dx / range), r = dx - n * range;
        bool even = fmod(n, 2.0) == 0.0;
        x = (x < lo) == even ? lo + r : hi - r;
    }
    return x;
}

/* Index of tap i after the padding mode, or -1 for a zero. */
static int64_t tap_index(const gridsample_params *p, int64_t size, double lo, double hi, int64_t i)
{
    if (p->padding == GRIDSAMPLE_REFLECTION && (i < 0 || i >= size))
        i = (int64_t)reflect((double)i, lo, hi);
    if (p->padding != GRIDSAMPLE_ZEROS)
        return i < 0 ? 0 : i >= size ? size - 1 : i;
    return i < 0 || i >= size ? -1 : i;
}

static void cubic_coeffs(double t, double *w)
{
    const double a = -0.75;
    double x0 = t + 1, x1 = t, x2 = 1 - t, x3 = 2 - t;
    w[0] = ((a * x0 - 5 * a) * x0 + 8 * a) * x0 - 4 * a;
    w[1] = ((a + 2) * x1 - (a + 3)) * x1 * x1 + 1;
    w[2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
    w[3] = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a;
}

int gridsample_axis_taps(const gridsample_params *p, int64_t size, double v, int64_t *idx,
                         double *w)
{
    double n = (double)size;
    double x = p->align_corners ? (v + 1) / 2 * (n - 1) : ((v + 1) * n - 1) / 2;
    double lo = p->align_corners ? 0.0 : -0.5, hi = p->align_corners ? n - 1 : n - 0.5;
    if (!isfinite(x))
        x = 0.0; /* NaN or Inf grid values: sample a defined point, never loop */
    if (p->mode == GRIDSAMPLE_NEAREST)
        x = nearbyint(x);
    if (x < lo || x > hi) {
        if (p->padding == GRIDSAMPLE_BORDER)
            x = x < 0 ? 0 : x > n - 1 ? n - 1 : x;
        else if (p->padding == GRIDSAMPLE_REFLECTION)
            x = reflect(x, lo, hi);
    }
    /* Far off the input every tap is a zero (or was clamped above): keep the casts below
     * defined whatever the grid holds. */
    x = fmin(fmax(x, -8.0), n + 8.0);
    if (p->mode == GRIDSAMPLE_NEAREST) {
        idx[0] = tap_index(p, size, lo, hi, (int64_t)x);
        w[0] = 1.0;
        return 1;
    }
    double base = floor(x), t = x - base;
    int first = p->mode == GRIDSAMPLE_CUBIC ? -1 : 0, count = p->mode == GRIDSAMPLE_CUBIC ? 4 : 2;
    if (p->mode == GRIDSAMPLE_CUBIC) {
        cubic_coeffs(t, w);
    } else {
        w[0] = 1 - t;
        w[1] = t;
    }
    for (int k = 0; k < count; k++)
        idx[k] = tap_index(p, size, lo, hi, (int64_t)base + first + k);
    return count;
}

vkml_status gridsample_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    static const vkml_dtype dtypes[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};
    vkml_status st;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)) ||
        (st = op_require_dtype(values, node, 0, dtypes, VKML_ARRAY_SIZE(dtypes), err)) ||
        (st = op_require_dtype(values, node, 1, dtypes, VKML_ARRAY_SIZE(dtypes), err)))
        return st;
    const graph_value *x = &values[node->inputs[0]], *grid = &values[node->inputs[1]];
    int r = x->rank - 2;
    if (r < 1 || (node->opset < 20 && r != 2) || grid->rank != x->rank ||
        grid->dims[0] != x->dims[0] || grid->dims[grid->rank - 1] != r)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "GridSample: grid '%s' must be [N, spatial..., %d] for input '%s' of rank "
                         "%d (4-D before opset 20)",
                         grid->name, r, x->name, x->rank);
    int64_t dims[VKML_MAX_RANK] = {x->dims[0], x->dims[1]};
    memcpy(dims + 2, grid->dims + 1, sizeof(int64_t) * (size_t)r);
    op_set_output(values, node, 0, x->dtype, x->rank, dims);
    return VKML_OK;
}
