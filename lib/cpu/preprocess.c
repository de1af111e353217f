/* com.vkml.ImagePreprocess on the CPU: the reference of shaders/preprocess.comp, which
 * follows it operation for operation (float arithmetic, same order). */
#include "ops/preprocess.h"
#include "cpu/cpu_kernels.h"

#include <math.h>
#include <string.h>

typedef struct frame_reader {
    const uint8_t *bytes;
    const vkml_preprocess *f;
    preprocess_yuv yuv; /* YUV formats */
} frame_reader;

/* Sample `comp` of pixel (x, y) of a plane whose pixels are `step` samples of `bytes` bytes
 * (1: a byte; 2: a little-endian word, masked and shifted as the YUV layout says). */
static float fetch(const frame_reader *r, int plane, uint32_t x, uint32_t y, uint32_t step,
                   uint32_t comp, uint32_t bytes)
{
    uint64_t a = r->f->plane_offsets[plane] + (uint64_t)y * r->f->plane_strides[plane] +
                 ((uint64_t)x * step + comp) * bytes;
    if (bytes == 1)
        return (float)r->bytes[a];
    uint32_t word = (uint32_t)r->bytes[a] | (uint32_t)r->bytes[a + 1] << 8;
    return (float)((word >> r->yuv.sample_shift) & r->yuv.sample_mask);
}

/* Bilinear sample of one component of a plane of w x h samples at (sx, sy), half-pixel
 * coordinates already applied, edges clamped. */
static float sample(const frame_reader *r, int plane, uint32_t w, uint32_t h, float sx, float sy,
                    uint32_t step, uint32_t comp, uint32_t bytes)
{
    sx = fminf(fmaxf(sx, 0.0f), (float)(w - 1));
    sy = fminf(fmaxf(sy, 0.0f), (float)(h - 1));
    uint32_t x0 = (uint32_t)sx, y0 = (uint32_t)sy;
    uint32_t x1 = x0 + 1 < w ? x0 + 1 : w - 1, y1 = y0 + 1 < h ? y0 + 1 : h - 1;
    float fx = sx - (float)x0, fy = sy - (float)y0;
    float a = fetch(r, plane, x0, y0, step, comp, bytes),
          b = fetch(r, plane, x1, y0, step, comp, bytes);
    float c = fetch(r, plane, x0, y1, step, comp, bytes),
          d = fetch(r, plane, x1, y1, step, comp, bytes);
    float top = a + (b - a) * fx, bottom = c + (d - c) * fx;
    return top + (bottom - top) * fy;
}

static float clamp255(float v)
{
    return fminf(fmaxf(v, 0.0f), 255.0f);
}

/* R, G, B (0..255) of the frame at frame coordinates (sx, sy). */
static void frame_rgb(const frame_reader *r, float sx, float sy, float rgb[3])
{
    const vkml_preprocess *f = r->f;
    uint32_t w = f->width, h = f->height;
    if (f->format == VKML_FRAME_PACKED_RGB) {
        for (int c = 0; c < 3; c++)
            rgb[c] = sample(r, 0, w, h, sx, sy, f->pixel_stride, f->rgb_offsets[c], 1);
        return;
    }
    if (f->format == VKML_FRAME_GRAY8) {
        rgb[0] = rgb[1] = rgb[2] = sample(r, 0, w, h, sx, sy, 1, 0, 1);
        return;
    }
    const preprocess_yuv *q = &r->yuv;
    float y = sample(r, 0, w, h, sx, sy, 1, 0, q->sample_bytes) * q->sample_scale;
    uint32_t cw = (w + q->sub_x) >> q->sub_x, ch = (h + q->sub_y) >> q->sub_y;
    float cx = q->sub_x ? (sx + 0.5f) * 0.5f - 0.5f : sx;
    float cy = q->sub_y ? (sy + 0.5f) * 0.5f - 0.5f : sy, u, v;
    if (q->semi_planar) {
        u = sample(r, 1, cw, ch, cx, cy, 2, 0, q->sample_bytes);
        v = sample(r, 1, cw, ch, cx, cy, 2, 1, q->sample_bytes);
    } else {
        u = sample(r, 1, cw, ch, cx, cy, 1, 0, q->sample_bytes);
        v = sample(r, 2, cw, ch, cx, cy, 1, 0, q->sample_bytes);
    }
    u = (u - q->chroma_zero) * q->sample_scale;
    v = (v - q->chroma_zero) * q->sample_scale;
    float kr = f->matrix == VKML_YUV_BT709 ? 0.2126f : 0.299f;
    float kb = f->matrix == VKML_YUV_BT709 ? 0.0722f : 0.114f;
    float kg = 1.0f - kr - kb;
    float yy = f->full_range ? y : (y - 16.0f) * (255.0f / 219.0f);
    float cb = f->full_range ? u : u * (255.0f / 224.0f);
    float cr = f->full_range ? v : v * (255.0f / 224.0f);
    rgb[0] = clamp255(yy + 2.0f * (1.0f - kr) * cr);
    rgb[1] =
        clamp255(yy - (2.0f * kb * (1.0f - kb) / kg) * cb - (2.0f * kr * (1.0f - kr) / kg) * cr);
    rgb[2] = clamp255(yy + 2.0f * (1.0f - kb) * cb);
}

typedef struct rows_job {
    const preprocess_params *p;
    preprocess_plan plan;
    const uint8_t *frames; /* frame b at b * preprocess_input_bytes */
    void *out;
} rows_job;

/* Output rows [begin, end) of the whole batch (row r: image r / height): every pixel's
 * channels, as preprocess.comp does per pixel. */
static void preprocess_rows(void *ctx, int64_t begin, int64_t end)
{
    const rows_job *job = ctx;
    const preprocess_params *p = job->p;
    const vkml_preprocess *f = &p->frame;
    const preprocess_plan *plan = &job->plan;
    size_t hw = (size_t)p->height * (size_t)p->width;
    for (int64_t row = begin; row < end; row++) {
        int64_t b = row / p->height;
        int y = (int)(row % p->height);
        frame_reader r = {.bytes = job->frames + (size_t)b * preprocess_input_bytes(f), .f = f};
        preprocess_yuv_layout(f, &r.yuv);
        size_t image = (size_t)b * hw * (size_t)p->channels; /* first element of image b */
        for (int x = 0; x < p->width; x++) {
            float rgb[3];
            bool inside =
                x >= plan->box_x0 && x < plan->box_x1 && y >= plan->box_y0 && y < plan->box_y1;
            if (inside) {
                float sx =
                    ((float)x + 0.5f - plan->offset_x) * plan->inv_scale_x - 0.5f + plan->src_x;
                float sy =
                    ((float)y + 0.5f - plan->offset_y) * plan->inv_scale_y - 0.5f + plan->src_y;
                frame_rgb(&r, sx, sy, rgb);
            } else {
                rgb[0] = rgb[1] = rgb[2] = f->pad_value;
            }
            size_t pix = (size_t)y * (size_t)p->width + (size_t)x;
            for (int c = 0; c < p->channels; c++) {
                float v = p->channels == 1 ? 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2]
                                           : rgb[f->bgr ? 2 - c : c];
                v = (v * f->scale - f->mean[c]) / f->std[c];
                size_t i =
                    image + (p->layout == PREPROCESS_NCHW ? (size_t)c * hw + pix
                                                          : pix * (size_t)p->channels + (size_t)c);
                if (p->dtype == VKML_DTYPE_FLOAT)
                    ((float *)job->out)[i] = v;
                else if (p->dtype == VKML_DTYPE_FLOAT16)
                    ((uint16_t *)job->out)[i] = vkml_half_from_float(v);
                else
                    ((uint8_t *)job->out)[i] =
                        (uint8_t)floorf(fminf(fmaxf(v, 0.0f), 255.0f) + 0.5f);
            }
        }
    }
}

/* Rough flops per output pixel (3 bilinear samples, colour, normalisation). */
#define PREPROCESS_PIXEL_COST 60.0

vkml_status cpu_image_preprocess(const op_cpu_args *args, vkml_error *err)
{
    (void)err;
    rows_job job = {.p = args->node->params, .frames = args->in[0], .out = args->out[0]};
    if (args->node->n_inputs == 2)
        preprocess_resolve_rect(job.p, (const int32_t *)args->in[1], &job.plan);
    else
        preprocess_resolve(job.p, &job.plan);
    int64_t batch = job.p->batch > 1 ? job.p->batch : 1;
    sched_parallel_for(batch * job.p->height, PREPROCESS_PIXEL_COST * job.p->width, preprocess_rows,
                       &job);
    return VKML_OK;
}
