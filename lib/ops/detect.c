#include "ops/detect.h"
#include "ops/op.h"
#include "ops/op_decls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest output bin grid accepted (output_height, output_width). */
#define ROIALIGN_MAX_OUT ((int64_t)1 << 16)

OP_PARSE_DECL(nms_parse)
{
    nms_params *p = params;
    static const op_attr_spec specs[] = {{"center_point_box", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    int64_t c = graph_attr_int(node, "center_point_box", 0);
    if (c != 0 && c != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "NonMaxSuppression: center_point_box must be 0 or 1, not %lld",
                         (long long)c);
    p->center_point_box = c == 1;
    return VKML_OK;
}

/* Scalar (or 1-element) input i as a double; *present false when omitted. */
static vkml_status read_scalar(const graph_value *values, const graph_node *node,
                               const void *const *data, int i, vkml_dtype want, double *out,
                               bool *present, vkml_error *err)
{
    *present = false;
    if (i >= node->n_inputs || node->inputs[i] < 0)
        return VKML_OK;
    const graph_value *v = &values[node->inputs[i]];
    const void *d = data ? data[i] : v->data;
    if (!d)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "NonMaxSuppression: input %d '%s' has no data", i, v->name);
    if (v->dtype != want || vkml_tensor_element_count(v->rank, v->dims) != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "NonMaxSuppression: input %d '%s' must be one %s", i, v->name,
                         vkml_dtype_name(want));
    *out = want == VKML_DTYPE_INT64 ? (double)*(const int64_t *)d : *(const float *)d;
    *present = true;
    return VKML_OK;
}

static vkml_status check_shapes(const graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 2, 5, 1, err)) ||
        (st = op_require_input(values, node, 0, err)) ||
        (st = op_require_input(values, node, 1, err)))
        return st;
    const graph_value *b = &values[node->inputs[0]], *s = &values[node->inputs[1]];
    if (b->dtype != VKML_DTYPE_FLOAT || s->dtype != VKML_DTYPE_FLOAT || b->rank != 3 ||
        s->rank != 3 || b->dims[2] != 4 || b->dims[0] != s->dims[0] || b->dims[1] != s->dims[2])
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "NonMaxSuppression: boxes '%s' must be float [B, N, 4] and scores '%s' "
                         "float [B, C, N]",
                         b->name, s->name);
    return VKML_OK;
}

vkml_status nms_read_inputs(const graph_value *values, const graph_node *node,
                            const void *const *data, nms_inputs *in, vkml_error *err)
{
    vkml_status st = check_shapes(values, node, err);
    if (st)
        return st;
    const graph_value *b = &values[node->inputs[0]], *s = &values[node->inputs[1]];
    memset(in, 0, sizeof(*in));
    in->batches = b->dims[0];
    in->boxes_per_batch = b->dims[1];
    in->classes = s->dims[1];
    in->boxes = data ? data[0] : b->data;
    in->scores = data ? data[1] : s->data;
    double v;
    bool present;
    if ((st = read_scalar(values, node, data, 2, VKML_DTYPE_INT64, &v, &present, err)))
        return st;
    /* Exporters write INT64_MAX for "no limit": as a double it is 2^63, which no int64
     * holds (the cast would be undefined); anything that large means every box. */
    in->max_per_class = !present || v < 0 ? 0 : v >= 0x1p62 ? INT64_MAX : (int64_t)v;
    if ((st = read_scalar(values, node, data, 3, VKML_DTYPE_FLOAT, &v, &present, err)))
        return st;
    in->iou_threshold = present ? (float)v : 0.0f;
    if (present && !(v >= 0.0 && v <= 1.0))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "NonMaxSuppression: iou_threshold %g is not in [0, 1]", v);
    if ((st = read_scalar(values, node, data, 4, VKML_DTYPE_FLOAT, &v, &present, err)))
        return st;
    in->score_threshold = (float)v;
    in->has_score_threshold = present;
    if (!in->boxes || !in->scores)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "NonMaxSuppression: boxes and scores have no data");
    return VKML_OK;
}

typedef struct corner_box {
    float x0, y0, x1, y1;
} corner_box;

static corner_box corners(const nms_params *p, const float *b)
{
    if (p->center_point_box)
        return (corner_box){b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2};
    return (corner_box){fminf(b[1], b[3]), fminf(b[0], b[2]), fmaxf(b[1], b[3]), fmaxf(b[0], b[2])};
}

/* Whether IoU(a, b) > threshold (false for empty boxes or no overlap). */
static bool suppresses(corner_box a, corner_box b, float threshold)
{
    float iw = fminf(a.x1, b.x1) - fmaxf(a.x0, b.x0), ih = fminf(a.y1, b.y1) - fmaxf(a.y0, b.y0);
    if (!(iw > 0) || !(ih > 0))
        return false;
    float inter = iw * ih;
    float area_a = (a.x1 - a.x0) * (a.y1 - a.y0), area_b = (b.x1 - b.x0) * (b.y1 - b.y0);
    float uni = area_a + area_b - inter;
    if (!(area_a > 0) || !(area_b > 0) || !(uni > 0))
        return false;
    return inter / uni > threshold;
}

typedef struct scored {
    float score;
    int64_t index;
} scored;

/* Higher score first; equal scores by lower box index. */
static int by_score(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int64_t nms_select(const nms_params *p, const nms_inputs *in, int64_t *out, int64_t max)
{
    int64_t n = in->boxes_per_batch, total = 0;
    scored *cand = malloc(sizeof(scored) * (size_t)(n ? n : 1));
    corner_box *kept = malloc(sizeof(corner_box) * (size_t)(n ? n : 1));
    if (!cand || !kept) {
        free(cand);
        free(kept);
        return -1;
    }
    for (int64_t b = 0; b < in->batches; b++) {
        const float *boxes = in->boxes + b * n * 4;
        for (int64_t c = 0; c < in->classes; c++) {
            const float *scores = in->scores + (b * in->classes + c) * n;
            int64_t count = 0, selected = 0, solid = 0;
            for (int64_t i = 0; i < n; i++)
                if (!in->has_score_threshold || scores[i] > in->score_threshold)
                    cand[count++] = (scored){scores[i], i};
            qsort(cand, (size_t)count, sizeof(scored), by_score);
            /* An empty box (no positive area) neither suppresses nor is suppressed: it is
             * kept without a comparison and compared with by none (100,000 of them are
             * then 100,000 steps, not 5e9 comparisons). `kept` holds the solid ones. */
            for (int64_t i = 0; i < count && selected < in->max_per_class; i++) {
                corner_box box = corners(p, boxes + cand[i].index * 4);
                bool empty = !((box.x1 - box.x0) * (box.y1 - box.y0) > 0), keep = true;
                for (int64_t k = 0; k < solid && keep && !empty; k++)
                    keep = !suppresses(kept[k], box, in->iou_threshold);
                if (!keep)
                    continue;
                if (!empty)
                    kept[solid++] = box;
                selected++;
                if (out && total < max) {
                    out[total * 3] = b;
                    out[total * 3 + 1] = c;
                    out[total * 3 + 2] = cand[i].index;
                }
                total++;
            }
        }
    }
    free(cand);
    free(kept);
    return total;
}

/* The output's bound: every class of every batch keeps at most min(boxes,
 * max_output_boxes_per_class) boxes (all boxes when that input is not a constant). */
vkml_status nms_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = check_shapes(values, node, err)))
        return st;
    const graph_value *s = &values[node->inputs[1]];
    int64_t per_class = s->dims[2];
    const graph_value *m = graph_node_input(values, node, 2);
    if (m && m->data && m->dtype == VKML_DTYPE_INT64 && m->data_size >= sizeof(int64_t)) {
        int64_t max = *(const int64_t *)m->data;
        per_class = max < 0 ? 0 : max < per_class ? max : per_class;
    }
    op_set_output(values, node, 0, VKML_DTYPE_INT64, 2,
                  (int64_t[]){s->dims[0] * s->dims[1] * per_class, 3});
    values[node->outputs[0]].data_dependent = true;
    return VKML_OK;
}

OP_PARSE_DECL(roialign_parse)
{
    roialign_params *p = params;
    static const op_attr_spec specs[] = {
        {"mode", GRAPH_ATTR_STRING},        {"coordinate_transformation_mode", GRAPH_ATTR_STRING},
        {"output_height", GRAPH_ATTR_INT},  {"output_width", GRAPH_ATTR_INT},
        {"sampling_ratio", GRAPH_ATTR_INT}, {"spatial_scale", GRAPH_ATTR_FLOAT},
    };
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    const char *mode = graph_attr_string(node, "mode", "avg");
    const char *ctm = graph_attr_string(node, "coordinate_transformation_mode",
                                        node->opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (strcmp(mode, "avg") != 0 && strcmp(mode, "max") != 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "RoiAlign: mode '%s' is not valid", mode);
    if (strcmp(ctm, "half_pixel") != 0 && strcmp(ctm, "output_half_pixel") != 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "RoiAlign: coordinate_transformation_mode '%s' is not valid", ctm);
    p->is_max = strcmp(mode, "max") == 0;
    p->half_pixel = strcmp(ctm, "half_pixel") == 0;
    p->out_h = graph_attr_int(node, "output_height", 1);
    p->out_w = graph_attr_int(node, "output_width", 1);
    p->sampling_ratio = graph_attr_int(node, "sampling_ratio", 0);
    p->spatial_scale = graph_attr_float(node, "spatial_scale", 1.0f);
    if (p->out_h < 1 || p->out_w < 1 || p->out_h > ROIALIGN_MAX_OUT ||
        p->out_w > ROIALIGN_MAX_OUT || p->sampling_ratio < 0 ||
        p->sampling_ratio * p->sampling_ratio > ROIALIGN_MAX_SAMPLES || !isfinite(p->spatial_scale))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "RoiAlign: output %lldx%lld, sampling_ratio %lld or spatial_scale %g is "
                         "out of range",
                         (long long)p->out_h, (long long)p->out_w, (long long)p->sampling_ratio,
                         p->spatial_scale);
    return VKML_OK;
}

vkml_status roialign_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const roialign_params *p = node->params;
    vkml_status st;
    if ((st = op_require_counts(node, 3, 3, 1, err)))
        return st;
    for (int i = 0; i < 3; i++)
        if ((st = op_require_input(values, node, i, err)))
            return st;
    const graph_value *x = &values[node->inputs[0]], *rois = &values[node->inputs[1]];
    const graph_value *bi = &values[node->inputs[2]];
    if (x->dtype != VKML_DTYPE_FLOAT || rois->dtype != VKML_DTYPE_FLOAT)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "RoiAlign: only float is supported, not %s",
                         vkml_dtype_name(x->dtype));
    if (x->rank != 4 || rois->rank != 2 || rois->dims[1] != 4 || bi->rank != 1 ||
        bi->dims[0] != rois->dims[0] || bi->dtype != VKML_DTYPE_INT64)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "RoiAlign: X must be [N, C, H, W], rois [R, 4], batch_indices int64 [R]");
    int64_t dims[4] = {rois->dims[0], x->dims[1], p->out_h, p->out_w};
    op_set_output(values, node, 0, x->dtype, 4, dims);
    return VKML_OK;
}
