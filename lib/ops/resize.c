#include "ops/resize.h"
#include "ops/op.h"
#include "ops/op_decls.h"

#include <math.h>
#include <string.h>

/* Largest output dimension a scale may produce: keeps sizes far from int64 overflow. */
#define RESIZE_MAX_EXTENT ((int64_t)1 << 31)

typedef struct name_value {
    const char *name;
    int value;
} name_value;

static vkml_status read_enum(const graph_node *node, const char *attr, const char *dflt,
                             const name_value *table, size_t n, int *out, vkml_error *err)
{
    const char *s = graph_attr_string(node, attr, dflt);
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, table[i].name) == 0) {
            *out = table[i].value;
            return VKML_OK;
        }
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: attribute '%s' value '%s' is not valid",
                     node->op_type, attr, s);
}

static const name_value modes[] = {{"nearest", RESIZE_NEAREST},
                                   {"linear", RESIZE_LINEAR},
                                   {"bilinear", RESIZE_LINEAR}, /* Upsample-7 */
                                   {"cubic", RESIZE_CUBIC}};
static const name_value coords[] = {
    {"half_pixel", RESIZE_HALF_PIXEL},
    {"half_pixel_symmetric", RESIZE_HALF_PIXEL_SYMMETRIC},
    {"pytorch_half_pixel", RESIZE_PYTORCH_HALF_PIXEL},
    {"align_corners", RESIZE_ALIGN_CORNERS},
    {"asymmetric", RESIZE_ASYMMETRIC},
    {"tf_crop_and_resize", RESIZE_TF_CROP_AND_RESIZE},
};
static const name_value nearests[] = {{"round_prefer_floor", RESIZE_ROUND_PREFER_FLOOR},
                                      {"round_prefer_ceil", RESIZE_ROUND_PREFER_CEIL},
                                      {"floor", RESIZE_FLOOR},
                                      {"ceil", RESIZE_CEIL}};
static const name_value aspects[] = {{"stretch", RESIZE_STRETCH},
                                     {"not_larger", RESIZE_NOT_LARGER},
                                     {"not_smaller", RESIZE_NOT_SMALLER}};

/* Opsets before 11 (Upsample, Resize-10): asymmetric coordinates, nearest or linear. */
static vkml_status parse_legacy(const graph_node *node, resize_params *p, vkml_error *err)
{
    p->coord = RESIZE_ASYMMETRIC;
    p->nearest = RESIZE_SIMPLE;
    p->roi_input = p->sizes_input = -1;
    bool attr_scales = strcmp(node->op_type, "Upsample") == 0 && node->opset < 9;
    p->scales_input = attr_scales ? -1 : 1;
    if (p->mode == RESIZE_CUBIC)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: mode 'cubic' needs opset 11",
                         node->op_type);
    if (!attr_scales)
        return VKML_OK;
    size_t n;
    const float *s = graph_attr_floats(node, "scales", &n);
    if (!s || n < 1 || n > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Upsample: attribute 'scales' (1 to %d floats) is required",
                         VKML_MAX_RANK);
    p->n_attr_scales = (int)n;
    memcpy(p->attr_scales, s, n * sizeof(float));
    return VKML_OK;
}

OP_PARSE_DECL(resize_parse)
{
    resize_params *p = params;
    static const op_attr_spec specs[] = {
        {"mode", GRAPH_ATTR_STRING},         {"coordinate_transformation_mode", GRAPH_ATTR_STRING},
        {"nearest_mode", GRAPH_ATTR_STRING}, {"keep_aspect_ratio_policy", GRAPH_ATTR_STRING},
        {"cubic_coeff_a", GRAPH_ATTR_FLOAT}, {"extrapolation_value", GRAPH_ATTR_FLOAT},
        {"exclude_outside", GRAPH_ATTR_INT}, {"antialias", GRAPH_ATTR_INT},
        {"axes", GRAPH_ATTR_INTS},           {"scales", GRAPH_ATTR_FLOATS},
    };
    vkml_status st;
    int mode = 0, coord = 0, nearest = 0, aspect = 0;
    if ((st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err)) ||
        (st = read_enum(node, "mode", "nearest", modes, VKML_ARRAY_SIZE(modes), &mode, err)))
        return st;
    p->mode = (resize_mode)mode;
    p->cubic_a = graph_attr_float(node, "cubic_coeff_a", -0.75f);
    p->extrapolation = graph_attr_float(node, "extrapolation_value", 0.0f);
    p->exclude_outside = graph_attr_int(node, "exclude_outside", 0) != 0;
    p->antialias = graph_attr_int(node, "antialias", 0) != 0;
    if (strcmp(node->op_type, "Upsample") == 0 || node->opset < 11)
        return parse_legacy(node, p, err);
    if ((st = read_enum(node, "coordinate_transformation_mode", "half_pixel", coords,
                        VKML_ARRAY_SIZE(coords), &coord, err)) ||
        (st = read_enum(node, "nearest_mode", "round_prefer_floor", nearests,
                        VKML_ARRAY_SIZE(nearests), &nearest, err)) ||
        (st = read_enum(node, "keep_aspect_ratio_policy", "stretch", aspects,
                        VKML_ARRAY_SIZE(aspects), &aspect, err)))
        return st;
    p->coord = (resize_coord)coord;
    p->nearest = (resize_nearest)nearest;
    p->aspect = (resize_aspect)aspect;
    if (p->coord == RESIZE_HALF_PIXEL_SYMMETRIC && node->opset < 19)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Resize: half_pixel_symmetric needs opset 19");
    size_t n_axes;
    const int64_t *axes = graph_attr_ints(node, "axes", &n_axes);
    if (axes && (n_axes < 1 || n_axes > VKML_MAX_RANK))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Resize: attribute 'axes' has %zu values",
                         n_axes);
    p->n_axes = axes ? (int)n_axes : 0;
    if (axes)
        memcpy(p->axes, axes, n_axes * sizeof(int64_t));
    p->roi_input = 1;
    p->scales_input = 2;
    p->sizes_input = 3;
    return VKML_OK;
}

/* Float data of input i, converted from float/double into buf (max values). */
static vkml_status read_floats(const graph_value *values, const graph_node *node,
                               const void *const *data, int i, float *buf, size_t max,
                               size_t *count, vkml_error *err)
{
    *count = 0;
    if (i < 0 || i >= node->n_inputs || node->inputs[i] < 0)
        return VKML_OK;
    const graph_value *v = &values[node->inputs[i]];
    const void *d = data ? data[i] : v->data;
    if (!d)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s input %d '%s' must be a constant (computed shapes are not supported)",
                         node->op_type, i, v->name);
    size_t n = vkml_tensor_element_count(v->rank, v->dims);
    if (v->rank != 1 || n > max)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s input %d '%s' must be 1-D with at most %zu values", node->op_type, i,
                         v->name, max);
    if (v->dtype != VKML_DTYPE_FLOAT && v->dtype != VKML_DTYPE_DOUBLE)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s input %d '%s' is %s, not float",
                         node->op_type, i, v->name, vkml_dtype_name(v->dtype));
    for (size_t k = 0; k < n; k++)
        buf[k] =
            v->dtype == VKML_DTYPE_FLOAT ? ((const float *)d)[k] : (float)((const double *)d)[k];
    *count = n;
    return VKML_OK;
}

vkml_status resize_read_inputs(const graph_value *values, const graph_node *node,
                               const void *const *data, resize_inputs *ri, vkml_error *err)
{
    const resize_params *p = node->params;
    memset(ri, 0, sizeof(*ri));
    vkml_status st;
    if ((st = read_floats(values, node, data, p->roi_input, ri->roi, 2 * VKML_MAX_RANK, &ri->n_roi,
                          err)) ||
        (st = read_floats(values, node, data, p->scales_input, ri->scales, VKML_MAX_RANK,
                          &ri->n_scales, err)))
        return st;
    if (p->n_attr_scales) {
        memcpy(ri->scales, p->attr_scales, sizeof(float) * (size_t)p->n_attr_scales);
        ri->n_scales = (size_t)p->n_attr_scales;
    }
    int si = p->sizes_input;
    if (si < 0 || si >= node->n_inputs || node->inputs[si] < 0)
        return VKML_OK;
    const graph_value *v = &values[node->inputs[si]];
    const void *d = data ? data[si] : v->data;
    if (!d)
        return op_const_ints(values, node, si, ri->sizes, VKML_MAX_RANK, &ri->n_sizes, err);
    if (v->dtype != VKML_DTYPE_INT64 || v->rank != 1 || v->dims[0] > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s input 3 '%s' must be 1-D int64",
                         node->op_type, v->name);
    ri->n_sizes = (size_t)v->dims[0];
    memcpy(ri->sizes, d, ri->n_sizes * sizeof(int64_t));
    return VKML_OK;
}

/* axes[k] of the node (or k), normalised; fails on out-of-range or repeated axes. */
static vkml_status resolve_axes(const resize_params *p, int rank, int *axes, int *n,
                                vkml_error *err)
{
    *n = p->n_axes ? p->n_axes : rank;
    bool seen[VKML_MAX_RANK] = {0};
    for (int k = 0; k < *n; k++) {
        int64_t a = p->n_axes ? p->axes[k] : k;
        if (a < -rank || a >= rank || seen[a < 0 ? a + rank : a])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Resize: axis %lld is out of range or repeated for rank %d",
                             (long long)a, rank);
        axes[k] = (int)(a < 0 ? a + rank : a);
        seen[axes[k]] = true;
    }
    return VKML_OK;
}

static vkml_status from_sizes(const resize_params *p, const resize_inputs *ri, const int *axes,
                              int n, resize_geometry *g, vkml_error *err)
{
    double pick = p->aspect == RESIZE_NOT_LARGER ? INFINITY : 0.0;
    for (int k = 0; k < n; k++) {
        int d = axes[k];
        if (ri->sizes[k] < 0 || ri->sizes[k] > RESIZE_MAX_EXTENT || g->in[d] < 1)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Resize: size %lld for axis %d of extent %lld is not valid",
                             (long long)ri->sizes[k], d, (long long)g->in[d]);
        g->out[d] = ri->sizes[k];
        g->scale[d] = (double)ri->sizes[k] / (double)g->in[d];
        pick = p->aspect == RESIZE_NOT_LARGER ? fmin(pick, g->scale[d]) : fmax(pick, g->scale[d]);
    }
    if (p->aspect == RESIZE_STRETCH)
        return VKML_OK;
    for (int k = 0; k < n; k++) {
        int d = axes[k];
        g->scale[d] = pick;
        g->out[d] = (int64_t)(pick * (double)g->in[d] + 0.5);
    }
    return VKML_OK;
}

static vkml_status from_scales(const resize_inputs *ri, const int *axes, int n, resize_geometry *g,
                               vkml_error *err)
{
    for (int k = 0; k < n; k++) {
        int d = axes[k];
        double s = ri->scales[k], out = floor(s * (double)g->in[d]);
        if (!(s > 0) || out > (double)RESIZE_MAX_EXTENT)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Resize: scale %g for axis %d is not valid", s, d);
        g->scale[d] = s;
        g->out[d] = (int64_t)out;
    }
    return VKML_OK;
}

/* Taps per axis: 1 for an unresized axis, else the filter's support (widened by 1/scale
 * when antialiasing a downsample). */
static vkml_status set_taps(const resize_params *p, resize_geometry *g, int d, vkml_error *err)
{
    double s = p->antialias && g->scale[d] < 1.0 ? g->scale[d] : 1.0;
    int start = 0;
    if (p->mode == RESIZE_LINEAR || p->mode == RESIZE_CUBIC) {
        double support = p->mode == RESIZE_LINEAR ? 1.0 : 2.0;
        double first = floor(-support / s) + 1;
        if (first < -(RESIZE_MAX_TAPS / 2 - 1))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                             "Resize: antialiasing scale %g of axis %d needs more than %d taps",
                             g->scale[d], d, RESIZE_MAX_TAPS);
        start = (int)first;
    }
    g->tap_start[d] = start;
    g->taps[d] = 2 - 2 * start;
    return VKML_OK;
}

vkml_status resize_resolve(const resize_params *p, int rank, const int64_t *in,
                           const resize_inputs *ri, resize_geometry *g, vkml_error *err)
{
    int axes[VKML_MAX_RANK], n;
    vkml_status st = resolve_axes(p, rank, axes, &n, err);
    if (st)
        return st;
    memset(g, 0, sizeof(*g));
    g->rank = rank;
    for (int d = 0; d < rank; d++) {
        g->in[d] = g->out[d] = in[d];
        g->scale[d] = 1.0;
        g->roi_end[d] = 1.0;
    }
    bool use_sizes = ri->n_sizes > 0;
    if (use_sizes == (ri->n_scales > 0))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Resize: exactly one of 'scales' and 'sizes' must be given");
    if ((use_sizes ? ri->n_sizes : ri->n_scales) != (size_t)n)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Resize: %zu %s for %d axes",
                         use_sizes ? ri->n_sizes : ri->n_scales, use_sizes ? "sizes" : "scales", n);
    if (ri->n_roi && ri->n_roi != (size_t)(2 * n))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Resize: roi has %zu values for %d axes",
                         ri->n_roi, n);
    if ((st = use_sizes ? from_sizes(p, ri, axes, n, g, err) : from_scales(ri, axes, n, g, err)))
        return st;
    for (int k = 0; k < n && ri->n_roi && p->coord == RESIZE_TF_CROP_AND_RESIZE; k++) {
        g->roi_start[axes[k]] = ri->roi[k];
        g->roi_end[axes[k]] = ri->roi[n + k];
    }
    for (int d = 0; d < rank; d++) {
        g->out_exact[d] = g->scale[d] * (double)g->in[d];
        if ((st = set_taps(p, g, d, err)))
            return st;
    }
    return VKML_OK;
}

/* The input coordinate of output index x (ONNX coordinate_transformation_mode); sets
 * *outside for tf_crop_and_resize coordinates off the input. */
static double axis_coordinate(const resize_params *p, const resize_geometry *g, int d, int64_t x,
                              bool *outside)
{
    double in = (double)g->in[d], out = g->out_exact[d], s = g->scale[d], c;
    *outside = false;
    switch (p->coord) {
    case RESIZE_ALIGN_CORNERS: return out == 1 ? 0.0 : (double)x * (in - 1) / (out - 1);
    case RESIZE_ASYMMETRIC: return (double)x / s;
    case RESIZE_PYTORCH_HALF_PIXEL: return out == 1 ? -0.5 : ((double)x + 0.5) / s - 0.5;
    case RESIZE_HALF_PIXEL_SYMMETRIC: {
        double offset = in / 2 * (1 - (double)g->out[d] / out);
        return offset + ((double)x + 0.5) / s - 0.5;
    }
    case RESIZE_TF_CROP_AND_RESIZE: {
        double span = g->roi_end[d] - g->roi_start[d];
        c = out == 1 ? span * (in - 1) / 2 : (double)x * span * (in - 1) / (out - 1);
        c += g->roi_start[d] * (in - 1);
        *outside = c < 0 || c > in - 1;
        return c;
    }
    default: return ((double)x + 0.5) / s - 0.5;
    }
}

static double cubic_kernel(double x, double a)
{
    x = fabs(x);
    if (x <= 1)
        return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2)
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
}

/* Which of the two taps (base, base + 1) nearest takes for a ratio in (0, 1]. */
static int nearest_tap(const resize_params *p, const resize_geometry *g, int d, double ratio)
{
    if (ratio == 1.0)
        return 1;
    switch (p->nearest) {
    case RESIZE_ROUND_PREFER_CEIL: return ratio >= 0.5;
    case RESIZE_FLOOR: return 0;
    case RESIZE_CEIL: return 1;
    case RESIZE_SIMPLE: return g->scale[d] < 1.0;
    default: return ratio > 0.5;
    }
}

int resize_axis_taps(const resize_params *p, const resize_geometry *g, int d, int64_t x,
                     int64_t *idx, double *w)
{
    bool outside;
    double c = axis_coordinate(p, g, d, x, &outside);
    if (outside || !isfinite(c)) /* a NaN roi extrapolates too */
        return 0;
    double base = c == floor(c) ? c - 1 : floor(c), ratio = c - base;
    int64_t last = g->in[d] - 1;
    if (p->mode == RESIZE_NEAREST) {
        int64_t i = (int64_t)base + nearest_tap(p, g, d, ratio);
        idx[0] = i < 0 ? 0 : i > last ? last : i;
        w[0] = 1.0;
        return 1;
    }
    double s = p->antialias && g->scale[d] < 1.0 ? g->scale[d] : 1.0, sum = 0.0;
    int n = g->taps[d];
    for (int k = 0; k < n; k++) {
        int t = g->tap_start[d] + k;
        int64_t i = (int64_t)base + t;
        double dist = ((double)t - ratio) * s;
        w[k] =
            p->mode == RESIZE_LINEAR ? fmax(0.0, 1.0 - fabs(dist)) : cubic_kernel(dist, p->cubic_a);
        if (p->exclude_outside && (i < 0 || i > last))
            w[k] = 0.0;
        idx[k] = i < 0 ? 0 : i > last ? last : i;
        sum += w[k];
    }
    if ((p->antialias || p->exclude_outside) && sum != 0.0)
        for (int k = 0; k < n; k++)
            w[k] /= sum;
    return n;
}

/* Whether axis d of a nearest Resize reads input off + (x / q) * f for every output index
 * x (q divides the output length): the taps of resize_axis_taps, one at weight 1 each. */
static bool axis_is_affine(const resize_params *p, const resize_geometry *g, int d, int64_t off,
                           int64_t q, int64_t f)
{
    if (q < 1 || f < 0 || g->out[d] % q != 0)
        return false;
    for (int64_t x = 0; x < g->out[d]; x++) {
        int64_t idx[RESIZE_MAX_TAPS];
        double w[RESIZE_MAX_TAPS];
        if (resize_axis_taps(p, g, d, x, idx, w) != 1 || w[0] != 1.0 || idx[0] != off + (x / q) * f)
            return false;
    }
    return true;
}

bool resize_as_strided(const resize_params *p, const resize_geometry *g, mv_step *s)
{
    if (p->mode != RESIZE_NEAREST || g->rank < 1 || g->rank > VKML_MAX_RANK)
        return false;
    memset(s, 0, sizeof(*s));
    s->kind = MV_STRIDED;
    int64_t in_strides[VKML_MAX_RANK], stride = 1;
    for (int d = g->rank - 1; d >= 0; d--) {
        in_strides[d] = stride;
        stride *= g->in[d];
    }
    int rank = 0;
    for (int d = 0; d < g->rank; d++) {
        int64_t out = g->out[d], in = g->in[d], q = 1, f = 1, off = 0;
        if (out == 0 || in == 0)
            return false;
        /* upsampling by a whole factor (x / q), else every f-th input from off */
        q = out % in == 0 ? out / in : 0;
        if (!axis_is_affine(p, g, d, 0, q, 1)) {
            int64_t idx[RESIZE_MAX_TAPS];
            double w[RESIZE_MAX_TAPS];
            q = 1;
            if (resize_axis_taps(p, g, d, 0, idx, w) != 1)
                return false;
            off = idx[0];
            f = 0;
            if (out > 1) {
                if (resize_axis_taps(p, g, d, 1, idx, w) != 1)
                    return false;
                f = idx[0] - off;
            }
            if (!axis_is_affine(p, g, d, off, 1, f))
                return false;
        }
        int dims_here = q > 1 ? 2 : 1;
        if (rank + dims_here > VKML_MAX_RANK)
            return false;
        s->src_offset += off * in_strides[d];
        s->dims[rank] = out / q;
        s->src_strides[rank++] = f * in_strides[d];
        if (q > 1) {
            s->dims[rank] = q;
            s->src_strides[rank++] = 0;
        }
    }
    s->rank = rank;
    stride = 1;
    for (int d = rank - 1; d >= 0; d--) {
        s->dst_strides[d] = stride;
        stride *= s->dims[d];
    }
    mv_simplify_strided(s);
    return true;
}

static const vkml_dtype resize_dtypes[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE,
                                           VKML_DTYPE_INT8,  VKML_DTYPE_UINT8,   VKML_DTYPE_INT32,
                                           VKML_DTYPE_INT64};

vkml_status resize_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const resize_params *p = node->params;
    vkml_status st;
    bool legacy = strcmp(node->op_type, "Upsample") == 0 || node->opset < 11;
    if ((st = op_require_counts(node, 1, legacy ? 2 : 4, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st =
             op_require_dtype(values, node, 0, resize_dtypes, VKML_ARRAY_SIZE(resize_dtypes), err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    resize_inputs ri;
    resize_geometry g;
    if ((st = resize_read_inputs(values, node, NULL, &ri, err)) ||
        (st = resize_resolve(p, x->rank, x->dims, &ri, &g, err)))
        return st;
    op_set_output(values, node, 0, x->dtype, x->rank, g.out);
    return VKML_OK;
}
