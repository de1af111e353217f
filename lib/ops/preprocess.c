/* com.vkml.ImagePreprocess: params, checks, geometry and shape function (see preprocess.h). */
#include "ops/preprocess.h"
#include "ops/op.h"

#include <math.h>
#include <string.h>

#define FRAME_INTS 18 /* a 19th and 20th, sample bits and shift, are optional */
#define OUTPUT_INTS 5 /* a 6th, the batch, is optional */
#define VALUE_FLOATS 8

uint64_t preprocess_input_bytes(const vkml_preprocess *f)
{
    return (f->frame_bytes + 3) & ~(uint64_t)3;
}

bool preprocess_frame_input_fits(const preprocess_params *p, const graph_value *x)
{
    int batch = p->batch > 1 ? p->batch : 1;
    if (x->dtype != VKML_DTYPE_UINT8 || (x->rank != 1 && x->rank != 2) ||
        (x->rank == 1 && batch != 1) || (x->rank == 2 && x->dims[0] != batch))
        return false;
    int64_t n = x->dims[x->rank - 1];
    /* batched frames lie preprocess_input_bytes apart */
    uint64_t need = x->rank == 2 ? preprocess_input_bytes(&p->frame) : p->frame.frame_bytes;
    return n >= 0 && (uint64_t)n >= need && (x->rank == 1 || (uint64_t)n == need);
}

static bool side_ok(int64_t v)
{
    return v >= 1 && v <= VKML_PREPROCESS_MAX_SIDE;
}

/* Plane `i` of `rows` rows of `row_bytes` each lies within the frame. */
static vkml_status check_plane(const vkml_preprocess *f, int i, uint64_t rows, uint64_t row_bytes,
                               vkml_error *err)
{
    uint64_t stride = f->plane_strides[i];
    if (stride < row_bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: plane %d stride %llu is below its row of %llu bytes", i,
                         (unsigned long long)stride, (unsigned long long)row_bytes);
    uint64_t end = f->plane_offsets[i] + (rows - 1) * stride + row_bytes;
    if (f->plane_offsets[i] > f->frame_bytes || end > f->frame_bytes)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: plane %d (offset %llu, %llu rows of stride %llu) ends "
                         "past the frame's %llu bytes",
                         i, (unsigned long long)f->plane_offsets[i], (unsigned long long)rows,
                         (unsigned long long)stride, (unsigned long long)f->frame_bytes);
    return VKML_OK;
}

bool preprocess_yuv_layout(const vkml_preprocess *f, preprocess_yuv *out)
{
    static const struct {
        vkml_frame_format format;
        bool semi_planar;
        uint32_t sub_x, sub_y;
    } yuv[] = {
        {VKML_FRAME_NV12, true, 1, 1},  {VKML_FRAME_I420, false, 1, 1},
        {VKML_FRAME_NV16, true, 1, 0},  {VKML_FRAME_I422, false, 1, 0},
        {VKML_FRAME_I444, false, 0, 0},
    };
    for (size_t i = 0; i < sizeof(yuv) / sizeof(yuv[0]); i++) {
        if (yuv[i].format != f->format)
            continue;
        uint32_t bits = f->sample_bits ? f->sample_bits : 8;
        double max = (double)((1u << bits) - 1);
        *out = (preprocess_yuv){
            .semi_planar = yuv[i].semi_planar,
            .sub_x = yuv[i].sub_x,
            .sub_y = yuv[i].sub_y,
            .sample_bits = bits,
            .sample_bytes = bits > 8 ? 2 : 1,
            .sample_shift = bits > 8 ? f->sample_shift : 0,
            .sample_mask = (1u << bits) - 1,
            .sample_scale = (float)(f->full_range ? 255.0 / max : ldexp(1.0, 8 - (int)bits)),
            .chroma_zero = (float)(1u << (bits - 1)),
        };
        return true;
    }
    return false;
}

/* The YUV planes of `f` lie within the frame; 16-bit samples at even bytes. */
static vkml_status check_yuv(const vkml_preprocess *f, vkml_error *err)
{
    preprocess_yuv y;
    uint32_t bits = f->sample_bits ? f->sample_bits : 8;
    if (bits < 8 || bits > 16 || (bits > 8 && f->sample_shift > 16 - bits))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: %u-bit samples at bit %u (8 .. 16 bits within a "
                         "16-bit word)",
                         bits, f->sample_shift);
    preprocess_yuv_layout(f, &y);
    int planes = y.semi_planar ? 2 : 3;
    for (int i = 0; i < planes; i++)
        if (y.sample_bytes == 2 && (f->plane_offsets[i] % 2 || f->plane_strides[i] % 2))
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "pre-processing: plane %d of 16-bit samples at an odd offset or "
                             "stride",
                             i);
    uint64_t w = f->width, h = f->height, b = y.sample_bytes;
    uint64_t cw = (w + y.sub_x) >> y.sub_x, ch = (h + y.sub_y) >> y.sub_y;
    vkml_status st = check_plane(f, 0, h, w * b, err);
    if (!st)
        st = check_plane(f, 1, ch, (y.semi_planar ? 2 : 1) * cw * b, err);
    if (!st && !y.semi_planar)
        st = check_plane(f, 2, ch, cw * b, err);
    return st;
}

vkml_status preprocess_check(preprocess_params *p, vkml_error *err)
{
    vkml_preprocess *f = &p->frame;
    vkml_status st;
    if (!side_ok(f->width) || !side_ok(f->height))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: frame %ux%u (each side 1 .. %d)", f->width, f->height,
                         VKML_PREPROCESS_MAX_SIDE);
    if (!side_ok(p->width) || !side_ok(p->height))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: input image %dx%d (each side 1 .. %d)", p->width,
                         p->height, VKML_PREPROCESS_MAX_SIDE);
    if (p->channels != 1 && p->channels != 3)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "pre-processing: %d channels (1 or 3)",
                         p->channels);
    if (p->layout != PREPROCESS_NCHW && p->layout != PREPROCESS_NHWC)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "pre-processing: bad layout %d",
                         (int)p->layout);
    if (p->dtype != VKML_DTYPE_FLOAT && p->dtype != VKML_DTYPE_FLOAT16 &&
        p->dtype != VKML_DTYPE_UINT8)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "pre-processing writes float, float16 or uint8 inputs, not %s",
                         vkml_dtype_name(p->dtype));
    if (p->batch == 0)
        p->batch = 1;
    if (p->batch < 1 || p->batch > PREPROCESS_MAX_BATCH)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: batch %d (1 .. %d frames)", p->batch,
                         PREPROCESS_MAX_BATCH);
    /* the shader addresses the whole batch's bytes and output pixels in 32 bits */
    if (f->frame_bytes > ((uint64_t)1 << 32) - 4 ||
        preprocess_input_bytes(f) * (uint64_t)p->batch > ((uint64_t)1 << 32) - 4 ||
        (uint64_t)p->width * (uint64_t)p->height * (uint64_t)p->batch > UINT32_MAX)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: %d frame(s) of %llu bytes into %dx%d images (at most "
                         "4 GiB of frames and 2^32 pixels)",
                         p->batch, (unsigned long long)f->frame_bytes, p->width, p->height);
    if ((unsigned)f->matrix > VKML_YUV_BT709 || (unsigned)f->resize > VKML_RESIZE_CROP)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: bad matrix %d or resize mode %d", (int)f->matrix,
                         (int)f->resize);
    uint64_t w = f->width, h = f->height;
    switch (f->format) {
    case VKML_FRAME_PACKED_RGB:
        if (f->pixel_stride < 1 || f->pixel_stride > 16)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "pre-processing: pixel stride %u (1 .. 16)", f->pixel_stride);
        for (int c = 0; c < 3; c++)
            if (f->rgb_offsets[c] >= f->pixel_stride)
                return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                                 "pre-processing: channel %d at byte %u of a %u-byte pixel", c,
                                 f->rgb_offsets[c], f->pixel_stride);
        st = check_plane(f, 0, h, w * f->pixel_stride, err);
        break;
    case VKML_FRAME_GRAY8: st = check_plane(f, 0, h, w, err); break;
    case VKML_FRAME_NV12:
    case VKML_FRAME_I420:
    case VKML_FRAME_NV16:
    case VKML_FRAME_I422:
    case VKML_FRAME_I444: st = check_yuv(f, err); break;
    default:
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "pre-processing: bad frame format %d",
                         (int)f->format);
    }
    if (st)
        return st;
    if (f->scale == 0.0f)
        f->scale = 1.0f / 255.0f;
    bool finite = isfinite(f->scale) && isfinite(f->pad_value);
    for (int c = 0; c < 3; c++) {
        if (f->std[c] == 0.0f)
            f->std[c] = 1.0f;
        finite = finite && isfinite(f->mean[c]) && isfinite(f->std[c]);
    }
    if (!finite)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "pre-processing: scale, pad value, mean and std must be finite");
    return VKML_OK;
}

void vkml_preprocess_get_geometry(const vkml_preprocess *f, uint32_t in_w, uint32_t in_h,
                                  vkml_preprocess_geometry *g)
{
    double fw = f->width ? f->width : 1, fh = f->height ? f->height : 1;
    double sx = in_w / fw, sy = in_h / fh;
    g->offset_x = g->offset_y = 0.0;
    if (f->resize == VKML_RESIZE_LETTERBOX || f->resize == VKML_RESIZE_CROP) {
        double s = f->resize == VKML_RESIZE_LETTERBOX ? fmin(sx, sy) : fmax(sx, sy);
        if (f->resize == VKML_RESIZE_LETTERBOX) {
            /* whole pixels of content, centred at a whole pixel */
            double cw = fmax(1.0, round(fw * s)), ch = fmax(1.0, round(fh * s));
            sx = cw / fw;
            sy = ch / fh;
            g->offset_x = floor((in_w - cw) / 2);
            g->offset_y = floor((in_h - ch) / 2);
        } else {
            sx = sy = s;
            g->offset_x = (in_w - fw * s) / 2;
            g->offset_y = (in_h - fh * s) / 2;
        }
    }
    g->scale_x = sx;
    g->scale_y = sy;
}

void preprocess_resolve(const preprocess_params *p, preprocess_plan *plan)
{
    vkml_preprocess_geometry g;
    vkml_preprocess_get_geometry(&p->frame, (uint32_t)p->width, (uint32_t)p->height, &g);
    plan->inv_scale_x = (float)(1.0 / g.scale_x);
    plan->inv_scale_y = (float)(1.0 / g.scale_y);
    plan->offset_x = (float)g.offset_x;
    plan->offset_y = (float)g.offset_y;
    plan->box_x0 = 0;
    plan->box_y0 = 0;
    plan->box_x1 = p->width;
    plan->box_y1 = p->height;
    plan->src_x = plan->src_y = 0.0f;
    if (p->frame.resize == VKML_RESIZE_LETTERBOX) {
        plan->box_x0 = (int)g.offset_x;
        plan->box_y0 = (int)g.offset_y;
        plan->box_x1 = (int)g.offset_x + (int)round(g.scale_x * p->frame.width);
        plan->box_y1 = (int)g.offset_y + (int)round(g.scale_y * p->frame.height);
    }
}

static int32_t clamp_i32(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void preprocess_resolve_rect(const preprocess_params *p, const int32_t rect[4],
                             preprocess_plan *plan)
{
    int32_t fw_i = (int32_t)p->frame.width, fh_i = (int32_t)p->frame.height;
    int32_t rx = clamp_i32(rect[0], 0, fw_i - 1), ry = clamp_i32(rect[1], 0, fh_i - 1);
    float fw = (float)clamp_i32(rect[2], 1, fw_i - rx),
          fh = (float)clamp_i32(rect[3], 1, fh_i - ry);
    float ow = (float)p->width, oh = (float)p->height;
    plan->src_x = (float)rx;
    plan->src_y = (float)ry;
    plan->box_x0 = plan->box_y0 = 0;
    plan->box_x1 = p->width;
    plan->box_y1 = p->height;
    plan->offset_x = plan->offset_y = 0.0f;
    plan->inv_scale_x = fw / ow;
    plan->inv_scale_y = fh / oh;
    if (p->frame.resize == VKML_RESIZE_LETTERBOX) {
        float s = fminf(ow / fw, oh / fh);
        float cw = fmaxf(1.0f, floorf(fw * s + 0.5f)), ch = fmaxf(1.0f, floorf(fh * s + 0.5f));
        plan->inv_scale_x = fw / cw;
        plan->inv_scale_y = fh / ch;
        plan->offset_x = floorf((ow - cw) * 0.5f);
        plan->offset_y = floorf((oh - ch) * 0.5f);
        plan->box_x0 = (int)plan->offset_x;
        plan->box_y0 = (int)plan->offset_y;
        plan->box_x1 = plan->box_x0 + (int)cw;
        plan->box_y1 = plan->box_y0 + (int)ch;
    } else if (p->frame.resize == VKML_RESIZE_CROP) {
        float s = fmaxf(ow / fw, oh / fh);
        plan->inv_scale_x = plan->inv_scale_y = 1.0f / s;
        plan->offset_x = (ow - fw * s) * 0.5f;
        plan->offset_y = (oh - fh * s) * 0.5f;
    }
}

void preprocess_output_dims(const preprocess_params *p, int64_t dims[4])
{
    dims[0] = p->batch > 1 ? p->batch : 1;
    if (p->layout == PREPROCESS_NCHW) {
        dims[1] = p->channels;
        dims[2] = p->height;
        dims[3] = p->width;
    } else {
        dims[1] = p->height;
        dims[2] = p->width;
        dims[3] = p->channels;
    }
}

vkml_status preprocess_parse(const graph_node *node, void *params, vkml_error *err)
{
    preprocess_params *p = params;
    size_t nf, no, nv;
    const int64_t *fr = graph_attr_ints(node, "frame", &nf);
    const int64_t *out = graph_attr_ints(node, "output", &no);
    const float *v = graph_attr_floats(node, "values", &nv);
    if (!fr || (nf != FRAME_INTS && nf != FRAME_INTS + 2) || !out ||
        (no != OUTPUT_INTS && no != OUTPUT_INTS + 1) || !v || nv != VALUE_FLOATS)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "needs ints 'frame' (%d or %d), ints 'output' (%d or %d) and floats "
                         "'values' (%d)",
                         FRAME_INTS, FRAME_INTS + 2, OUTPUT_INTS, OUTPUT_INTS + 1, VALUE_FLOATS);
    for (size_t i = 0; i < nf; i++)
        if (fr[i] < 0 || fr[i] > (int64_t)UINT32_MAX)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "'frame' value %zu out of range", i);
    for (size_t i = 0; i < no; i++)
        if (out[i] < 0 || out[i] > VKML_PREPROCESS_MAX_SIDE)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "'output' value %zu out of range", i);
    vkml_preprocess *f = &p->frame;
    f->format = (vkml_frame_format)fr[0];
    f->width = (uint32_t)fr[1];
    f->height = (uint32_t)fr[2];
    f->pixel_stride = (uint32_t)fr[3];
    for (int c = 0; c < 3; c++) {
        f->rgb_offsets[c] = (uint32_t)fr[4 + c];
        f->plane_offsets[c] = (uint64_t)fr[7 + c];
        f->plane_strides[c] = (uint32_t)fr[10 + c];
    }
    f->frame_bytes = (uint64_t)fr[13];
    f->matrix = (vkml_yuv_matrix)fr[14];
    f->full_range = fr[15] != 0;
    f->resize = (vkml_resize_mode)fr[16];
    f->bgr = fr[17] != 0;
    if (nf > FRAME_INTS) {
        f->sample_bits = (uint32_t)fr[18];
        f->sample_shift = (uint32_t)fr[19];
    }
    p->layout = (preprocess_layout)out[0];
    p->channels = (int)out[1];
    p->height = (int)out[2];
    p->width = (int)out[3];
    p->dtype = (vkml_dtype)out[4];
    p->batch = no > OUTPUT_INTS ? (int)out[OUTPUT_INTS] : 1;
    f->pad_value = v[0];
    f->scale = v[1];
    for (int c = 0; c < 3; c++) {
        f->mean[c] = v[2 + c];
        f->std[c] = v[5 + c];
    }
    vkml_status st = preprocess_check(p, err);
    if (st == VKML_ERROR_INVALID_ARGUMENT)
        err->status = st = VKML_ERROR_INVALID_MODEL;
    return st;
}

vkml_status preprocess_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const preprocess_params *p = node->params;
    vkml_status st = op_require_counts(node, 1, 2, 1, err);
    if (st || (st = op_require_input(values, node, 0, err)))
        return st;
    if (node->n_inputs == 2) {
        if ((st = op_require_input(values, node, 1, err)))
            return st;
        const graph_value *r = &values[node->inputs[1]];
        if (r->dtype != VKML_DTYPE_INT32 || r->rank != 1 || r->dims[0] != PREPROCESS_RECT_INTS)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "ImagePreprocess: the rectangle input '%s' must be int32 [%d] "
                             "(x, y, width, height)",
                             r->name, PREPROCESS_RECT_INTS);
    }
    const graph_value *x = &values[node->inputs[0]];
    if (!preprocess_frame_input_fits(p, x))
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "ImagePreprocess: the frame input '%s' must be uint8 [n] (batch 1) or "
                         "[%d, n], n >= %llu bytes of a frame",
                         x->name, p->batch, (unsigned long long)p->frame.frame_bytes);
    int64_t dims[4];
    preprocess_output_dims(p, dims);
    if (p->unbatched)
        op_set_output(values, node, 0, p->dtype, 3, dims + 1);
    else
        op_set_output(values, node, 0, p->dtype, 4, dims);
    return VKML_OK;
}
