/* vkml_session_params.preprocess (com.vkml.ImagePreprocess): frames of every format into
 * image inputs of every layout and dtype, on the CPU device and on the Vulkan device,
 * each against a reference written here in double from the documented order of
 * operations (vkml.h), and the Vulkan kernel against the CPU kernel. The model is an
 * Identity, so the session's output is the pre-processed input.
 * Tolerance: 2e-3 of the normalised value (about 0.5/255 of a pixel at std 1) for float,
 * float16 adds its rounding (1e-3 relative), uint8 within 1 (rounding at .5 boundaries).
 * The Vulkan kernel matches the CPU kernel to 1e-4 (float) and 1 (uint8). */
#include "test_graph.h"

#include <math.h>
#include <stdlib.h>

typedef struct frame {
    vkml_preprocess pp;
    uint8_t *bytes;  /* frame_bytes rounded up to 4 */
    int32_t rect[4]; /* pp.rect_input: the source rectangle x, y, w, h the runs pass */
} frame;

/* The YUV formats' chroma: planes (2: U, V interleaved), subsampling per axis. */
typedef struct yuv_shape {
    int planes, sub_x, sub_y;
} yuv_shape;

static yuv_shape yuv_of(vkml_frame_format format)
{
    switch (format) {
    case VKML_FRAME_NV12: return (yuv_shape){2, 1, 1};
    case VKML_FRAME_NV16: return (yuv_shape){2, 1, 0};
    case VKML_FRAME_I420: return (yuv_shape){3, 1, 1};
    case VKML_FRAME_I422: return (yuv_shape){3, 1, 0};
    default: return (yuv_shape){3, 0, 0};
    }
}

/* A YUV frame of random bytes, rows padded by `pad` samples; samples of `bits` (0: 8)
 * take 2 bytes above 8, holding the sample at bit `shift`. */
static frame make_yuv_frame(vkml_frame_format format, uint32_t w, uint32_t h, uint32_t pad,
                            uint32_t bits, uint32_t shift, uint64_t *seed);

static frame make_frame(vkml_frame_format format, uint32_t w, uint32_t h, uint32_t pad,
                        uint32_t pixel_stride, const uint32_t *rgb, uint64_t *seed)
{
    if (format != VKML_FRAME_PACKED_RGB && format != VKML_FRAME_GRAY8)
        return make_yuv_frame(format, w, h, pad, 0, 0, seed);
    frame f = {.pp = {.format = format, .width = w, .height = h}};
    uint64_t at = 0;
    if (format == VKML_FRAME_PACKED_RGB) {
        f.pp.pixel_stride = pixel_stride;
        memcpy(f.pp.rgb_offsets, rgb, sizeof(f.pp.rgb_offsets));
        f.pp.plane_strides[0] = w * pixel_stride + pad;
        at = (uint64_t)f.pp.plane_strides[0] * h;
    } else {
        f.pp.plane_strides[0] = w + pad;
        at = (uint64_t)(w + pad) * h;
    }
    f.pp.frame_bytes = at;
    size_t n = (size_t)((at + 3) & ~(uint64_t)3);
    f.bytes = malloc(n);
    for (size_t i = 0; i < n; i++)
        f.bytes[i] = (uint8_t)(test_randf(seed, 0, 256));
    return f;
}

static frame make_yuv_frame(vkml_frame_format format, uint32_t w, uint32_t h, uint32_t pad,
                            uint32_t bits, uint32_t shift, uint64_t *seed)
{
    frame f = {
        .pp = {
            .format = format, .width = w, .height = h, .sample_bits = bits, .sample_shift = shift}};
    yuv_shape y = yuv_of(format);
    uint32_t b = bits > 8 ? 2 : 1, cw = (w + y.sub_x) >> y.sub_x, ch = (h + y.sub_y) >> y.sub_y;
    uint32_t odd = b == 1 ? 1 : 2; /* planes off the 4-byte grid on purpose */
    f.pp.plane_strides[0] = w * b + pad * b;
    uint64_t at = (uint64_t)f.pp.plane_strides[0] * h;
    for (int p = 1; p < y.planes; p++) {
        f.pp.plane_offsets[p] = at + odd;
        f.pp.plane_strides[p] = (uint32_t)(4 - y.planes) * cw * b + pad * b;
        at += odd + (uint64_t)f.pp.plane_strides[p] * ch;
    }
    f.pp.frame_bytes = at;
    size_t n = (size_t)((at + 3) & ~(uint64_t)3);
    f.bytes = malloc(n);
    for (size_t i = 0; i < n; i++)
        f.bytes[i] = (uint8_t)(test_randf(seed, 0, 256));
    return f;
}

/* ---- the reference, in double ---------------------------------------------------- */

/* A sample: a byte, or for YUV of more than 8 bits its bits of a little-endian word. */
static double byte_at(const frame *f, int plane, long x, long y, int step, int comp)
{
    const vkml_preprocess *p = &f->pp;
    bool wide = p->format != VKML_FRAME_PACKED_RGB && p->sample_bits > 8;
    uint64_t a = p->plane_offsets[plane] + (uint64_t)y * p->plane_strides[plane] +
                 ((uint64_t)x * (uint64_t)step + (uint64_t)comp) * (wide ? 2 : 1);
    if (!wide)
        return f->bytes[a];
    unsigned word = f->bytes[a] | (unsigned)f->bytes[a + 1] << 8;
    return (word >> p->sample_shift) & ((1u << p->sample_bits) - 1);
}

static double bilinear(const frame *f, int plane, long w, long h, double x, double y, int step,
                       int comp)
{
    x = x < 0 ? 0 : x > w - 1 ? w - 1 : x;
    y = y < 0 ? 0 : y > h - 1 ? h - 1 : y;
    long x0 = (long)floor(x), y0 = (long)floor(y);
    long x1 = x0 + 1 < w ? x0 + 1 : w - 1, y1 = y0 + 1 < h ? y0 + 1 : h - 1;
    double fx = x - x0, fy = y - y0;
    return (1 - fy) * ((1 - fx) * byte_at(f, plane, x0, y0, step, comp) +
                       fx * byte_at(f, plane, x1, y0, step, comp)) +
           fy * ((1 - fx) * byte_at(f, plane, x0, y1, step, comp) +
                 fx * byte_at(f, plane, x1, y1, step, comp));
}

static double clamp255(double v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* R, G, B at frame position (x, y), pixel centres at integers. */
static void ref_rgb(const frame *f, double x, double y, double rgb[3])
{
    const vkml_preprocess *p = &f->pp;
    long w = p->width, h = p->height;
    if (p->format == VKML_FRAME_PACKED_RGB) {
        for (int c = 0; c < 3; c++)
            rgb[c] = bilinear(f, 0, w, h, x, y, (int)p->pixel_stride, (int)p->rgb_offsets[c]);
        return;
    }
    double Y = bilinear(f, 0, w, h, x, y, 1, 0);
    if (p->format == VKML_FRAME_GRAY8) {
        rgb[0] = rgb[1] = rgb[2] = Y;
        return;
    }
    /* a subsampled chroma sample i covers luma 2i, 2i+1: its centre is at luma 2i + 0.5 */
    yuv_shape ys = yuv_of(p->format);
    double cx = ys.sub_x ? (x - 0.5) / 2 : x, cy = ys.sub_y ? (y - 0.5) / 2 : y, U, V;
    long cw = (w + ys.sub_x) >> ys.sub_x, ch = (h + ys.sub_y) >> ys.sub_y;
    /* 10 bits: limited range is 8 bits' times 4, full range 0 .. 1023 */
    double unit = p->sample_bits > 8 ? ldexp(1, (int)p->sample_bits - 8) : 1, top = 256 * unit - 1;
    if (ys.planes == 2) {
        U = bilinear(f, 1, cw, ch, cx, cy, 2, 0);
        V = bilinear(f, 1, cw, ch, cx, cy, 2, 1);
    } else {
        U = bilinear(f, 1, cw, ch, cx, cy, 1, 0);
        V = bilinear(f, 2, cw, ch, cx, cy, 1, 0);
    }
    double kr = p->matrix == VKML_YUV_BT709 ? 0.2126 : 0.299;
    double kb = p->matrix == VKML_YUV_BT709 ? 0.0722 : 0.114;
    U -= 128 * unit;
    V -= 128 * unit;
    double ey = p->full_range ? Y / top : (Y - 16 * unit) / (219 * unit); /* 0..1 */
    double pb = p->full_range ? U / top : U / (224 * unit);               /* -0.5..0.5 */
    double pr = p->full_range ? V / top : V / (224 * unit);
    double r = ey + 2 * (1 - kr) * pr, b = ey + 2 * (1 - kb) * pb;
    double g = (ey - kr * r - kb * b) / (1 - kr - kb);
    rgb[0] = clamp255(255 * r);
    rgb[1] = clamp255(255 * g);
    rgb[2] = clamp255(255 * b);
}

typedef struct image {
    int nhwc, c, h, w;
    vkml_dtype dtype;
} image;

/* The model input pre-processing should produce, as doubles, in the input's layout. */
static double *reference(const frame *f, const image *im)
{
    const vkml_preprocess *p = &f->pp;
    double *out = calloc((size_t)im->c * im->h * im->w, sizeof(double));
    double W = im->w, H = im->h, fw = p->width, fh = p->height, rx = 0, ry = 0;
    if (p->rect_input) { /* the rectangle, clamped to the frame, stands for the frame */
        rx = fmin(fmax(f->rect[0], 0), p->width - 1.0);
        ry = fmin(fmax(f->rect[1], 0), p->height - 1.0);
        fw = fmin(fmax(f->rect[2], 1), p->width - rx);
        fh = fmin(fmax(f->rect[3], 1), p->height - ry);
    }
    double sx = W / fw, sy = H / fh, ox = 0, oy = 0, x0 = 0, x1 = W, y0 = 0, y1 = H;
    if (p->resize == VKML_RESIZE_LETTERBOX) {
        double s = fmin(sx, sy), cw = round(fw * s), chh = round(fh * s);
        ox = floor((W - cw) / 2);
        oy = floor((H - chh) / 2);
        sx = cw / fw;
        sy = chh / fh;
        x0 = ox, x1 = ox + cw, y0 = oy, y1 = oy + chh;
    } else if (p->resize == VKML_RESIZE_CROP) {
        sx = sy = fmax(sx, sy);
        ox = (W - fw * sx) / 2;
        oy = (H - fh * sy) / 2;
    }
    double scale = p->scale != 0 ? p->scale : 1.0 / 255;
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            double rgb[3];
            if (x >= x0 && x < x1 && y >= y0 && y < y1)
                ref_rgb(f, rx + (x + 0.5 - ox) / sx - 0.5, ry + (y + 0.5 - oy) / sy - 0.5, rgb);
            else
                rgb[0] = rgb[1] = rgb[2] = p->pad_value;
            for (int c = 0; c < im->c; c++) {
                double v = im->c == 1 ? 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
                                      : rgb[p->bgr ? 2 - c : c];
                double sd = p->std[c] != 0 ? p->std[c] : 1;
                v = (v * scale - p->mean[c]) / sd;
                if (im->dtype == VKML_DTYPE_UINT8)
                    v = floor(clamp255(v) + 0.5);
                size_t i = im->nhwc ? ((size_t)y * im->w + x) * im->c + c
                                    : ((size_t)c * im->h + y) * im->w + x;
                out[i] = v;
            }
        }
    return out;
}

/* ---- running it ------------------------------------------------------------------ */

/* Identity model of one input: dims as given, -1 symbolic (named "batch", "h", "w"). */
static vkml_model *identity_model(vkml_dtype dtype, const int64_t *dims)
{
    static const char *names[4] = {"batch", "c", "h", "w"};
    graph *g = graph_create();
    int in = tg_value(g, "image", dtype, 4, dims);
    for (int d = 0; d < 4; d++)
        if (dims[d] < 0)
            g->values[in].dim_names[d] = names[d];
    int out = tg_value(g, "out", dtype, 4, dims);
    tg_node(g, "copy", "Identity", in, -1, out, 13);
    vkml_error err = {0};
    CHECK_OK(op_bind_node(g->arena, &g->nodes[0], &err), &err);
    return tg_model(g, &in, 1, &out, 1, 13);
}

static double element(const vkml_tensor *t, size_t i)
{
    double v = 0;
    CHECK(vkml_dtype_value(t->dtype, t->data, i, &v), "dtype");
    return v;
}

/* Runs the frame through a session on `device`; returns the output (caller frees). */
static vkml_tensor run(vkml_context *ctx, vkml_model *model, int device, const frame *f,
                       const vkml_tensor_info *shape)
{
    vkml_session_params params = {.device = device, .preprocess = &f->pp, .input_shapes = shape};
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_tensor out = {0};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (!s)
        return out;
    const vkml_tensor_info *in = vkml_session_input(s, 0);
    CHECK(in->dtype == VKML_DTYPE_UINT8 && in->rank == 1 &&
              in->dims[0] == (int64_t)((f->pp.frame_bytes + 3) & ~3ull),
          "input 0 is the frame's bytes");
    if (device != VKML_DEVICE_CPU) {
        size_t fallback = 99, on_device = 0;
        vkml_session_node_counts(s, NULL, &on_device, &fallback);
        CHECK(fallback == 0 && on_device >= 1, "pre-processing ran on the CPU instead of device %d",
              device);
        vkml_plan_part part;
        CHECK(vkml_session_plan_part(s, 0, &part) && part.device == device &&
                  strcmp(part.first_node, "vkml_preprocess") == 0,
              "the plan starts with the pre-processing on device %d", device);
    }
    vkml_tensor t[2] = {{.dtype = VKML_DTYPE_UINT8,
                         .rank = 1,
                         .dims = {in->dims[0]},
                         .data = f->bytes,
                         .size = (size_t)in->dims[0]}};
    size_t n_in = 1;
    CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
    if (f->pp.rect_input) {
        const vkml_tensor_info *r = vkml_session_input(s, 1);
        CHECK(vkml_session_input_count(s) == 2 && r->dtype == VKML_DTYPE_INT32 && r->rank == 1 &&
                  r->dims[0] == 4,
              "the rectangle is input 1, int32 [4]");
        /* one session serves every rectangle: a whole-frame run first, then the case's */
        int32_t whole[4] = {0, 0, (int32_t)f->pp.width, (int32_t)f->pp.height};
        t[1] = (vkml_tensor){
            .dtype = VKML_DTYPE_INT32, .rank = 1, .dims = {4}, .data = whole, .size = 16};
        CHECK_OK(vkml_session_run(s, t, 2, &out, 1, &err), &err);
        t[1].data = (void *)f->rect;
        n_in = 2;
    }
    CHECK_OK(vkml_session_run(s, t, n_in, &out, 1, &err), &err);
    vkml_session_destroy(&s);
    return out;
}

static void check_case(vkml_context *ctx, const char *name, frame *f, image im,
                       const int64_t *model_dims)
{
    int64_t dims[4] = {1, im.c, im.h, im.w};
    if (im.nhwc) {
        dims[1] = im.h;
        dims[2] = im.w;
        dims[3] = im.c;
    }
    vkml_model *model = identity_model(im.dtype, model_dims ? model_dims : dims);
    vkml_tensor_info shape = {.dtype = im.dtype, .rank = 4};
    memcpy(shape.dims, dims, sizeof(dims));
    double *want = reference(f, &im);
    size_t n = (size_t)im.c * im.h * im.w;
    vkml_tensor cpu = run(ctx, model, VKML_DEVICE_CPU, f, model_dims ? &shape : NULL);
    vkml_tensor gpu = run(ctx, model, 0, f, model_dims ? &shape : NULL);
    for (int k = 0; k < 2; k++) {
        const vkml_tensor *t = k ? &gpu : &cpu;
        CHECK(t->data && vkml_tensor_element_count(t->rank, t->dims) == n, "%s: output size", name);
        if (!t->data)
            continue;
        CHECK(memcmp(t->dims, dims, sizeof(dims)) == 0, "%s: output dims", name);
        int bad = 0;
        for (size_t i = 0; i < n && bad < 5; i++) {
            double got = element(t, i), tol = im.dtype == VKML_DTYPE_UINT8 ? 1.0 : 2e-3;
            if (im.dtype == VKML_DTYPE_FLOAT16)
                tol += 1e-3 * fabs(want[i]);
            if (!(fabs(got - want[i]) <= tol)) {
                CHECK(0, "%s on %s: element %zu is %g, reference %g", name, k ? "Vulkan" : "CPU", i,
                      got, want[i]);
                bad++;
            }
        }
    }
    if (cpu.data && gpu.data) {
        double tol = im.dtype == VKML_DTYPE_UINT8     ? 1.0
                     : im.dtype == VKML_DTYPE_FLOAT16 ? 2e-3
                                                      : 1e-4;
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            worst = fmax(worst, fabs(element(&cpu, i) - element(&gpu, i)));
        CHECK(worst <= tol, "%s: Vulkan differs from the CPU kernel by %g", name, worst);
        printf("%-28s Vulkan vs CPU max |diff| %g\n", name, worst);
    }
    vkml_tensor_release(&cpu);
    vkml_tensor_release(&gpu);
    free(want);
    vkml_model_destroy(&model);
}

/* vkml_preprocess.rect_input: a source rectangle per run, every resize mode, one clamped. */
static void check_rects(vkml_context *ctx, uint64_t *seed)
{
    const uint32_t rgb[3] = {0, 1, 2};
    frame f = make_frame(VKML_FRAME_PACKED_RGB, 17, 12, 3, 3, rgb, seed);
    f.pp.rect_input = true;
    memcpy(f.rect, (int32_t[4]){3, 2, 6, 5}, sizeof(f.rect));
    check_case(ctx, "RGB rect stretch", &f, (image){0, 3, 5, 4, VKML_DTYPE_FLOAT}, NULL);
    memcpy(f.rect, (int32_t[4]){8, 1, 8, 8}, sizeof(f.rect));
    check_case(ctx, "RGB rect 2x down uint8", &f, (image){1, 3, 4, 4, VKML_DTYPE_UINT8}, NULL);
    f.pp.resize = VKML_RESIZE_LETTERBOX;
    f.pp.pad_value = 114;
    memcpy(f.rect, (int32_t[4]){1, 4, 9, 4}, sizeof(f.rect));
    check_case(ctx, "RGB rect letterbox", &f, (image){0, 3, 8, 8, VKML_DTYPE_FLOAT}, NULL);
    f.pp.resize = VKML_RESIZE_CROP;
    memcpy(f.rect, (int32_t[4]){5, 0, 10, 6}, sizeof(f.rect));
    check_case(ctx, "RGB rect crop float16", &f, (image){0, 3, 6, 6, VKML_DTYPE_FLOAT16}, NULL);
    f.pp.resize = VKML_RESIZE_STRETCH;
    memcpy(f.rect, (int32_t[4]){-4, 9, 1000, -3}, sizeof(f.rect)); /* clamped: 0, 9, 17, 1 */
    check_case(ctx, "RGB rect clamped", &f, (image){0, 3, 3, 7, VKML_DTYPE_FLOAT}, NULL);
    free(f.bytes);
    f = make_frame(VKML_FRAME_NV12, 14, 10, 2, 0, NULL, seed);
    f.pp.rect_input = true;
    memcpy(f.rect, (int32_t[4]){3, 3, 7, 6}, sizeof(f.rect));
    check_case(ctx, "NV12 rect", &f, (image){0, 3, 6, 7, VKML_DTYPE_FLOAT}, NULL);

    /* A rectangle of another type or size is refused by the run, naming the input. */
    int64_t dims[4] = {1, 3, 4, 4};
    vkml_model *model = identity_model(VKML_DTYPE_FLOAT, dims);
    vkml_session_params params = {.device = VKML_DEVICE_CPU, .preprocess = &f.pp};
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_tensor out = {0};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
    float frect[4] = {0, 0, 4, 4};
    size_t frame_bytes = (size_t)((f.pp.frame_bytes + 3) & ~3ull);
    vkml_tensor in[2] = {
        {.dtype = VKML_DTYPE_UINT8,
         .rank = 1,
         .dims = {(int64_t)frame_bytes},
         .data = f.bytes,
         .size = frame_bytes},
        {.dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {4}, .data = frect, .size = 16}};
    CHECK(vkml_session_run(s, in, 2, &out, 1, &err) != VKML_OK, "a float rectangle is refused");
    in[1].dtype = VKML_DTYPE_INT32;
    in[1].size = 8;
    CHECK(vkml_session_run(s, in, 2, &out, 1, &err) != VKML_OK,
          "a rectangle of 8 bytes is refused");
    CHECK(vkml_session_run(s, in, 1, &out, 1, &err) != VKML_OK, "a missing rectangle is refused");
    vkml_tensor_release(&out);
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
    free(f.bytes);
}

/* A batch of `n` frames (same layout, own bytes) through a model of symbolic batch bound
 * to n: the frame input is [n, bytes] and image b equals the reference of frame b, on
 * every device. */
static void check_batch(vkml_context *ctx, const char *name, frame *frames, int n, image im)
{
    const int64_t model_dims[4] = {-1, 3, -1, -1};
    vkml_tensor_info shape = {.dtype = im.dtype, .rank = 4, .dims = {n, im.c, im.h, im.w}};
    vkml_model *model = identity_model(im.dtype, model_dims);
    size_t slot = (size_t)((frames[0].pp.frame_bytes + 3) & ~3ull),
           per = (size_t)im.c * im.h * im.w;
    uint8_t *bytes = calloc((size_t)n, slot);
    for (int b = 0; b < n; b++)
        memcpy(bytes + (size_t)b * slot, frames[b].bytes, slot);
    TEST_FOR_EACH_DEVICE(target, ctx) {
        vkml_session_params params = {
            .device = target.device, .preprocess = &frames[0].pp, .input_shapes = &shape};
        vkml_session *s = NULL;
        vkml_error err = {0};
        vkml_tensor out = {0};
        CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
        if (!s)
            continue;
        const vkml_tensor_info *in = vkml_session_input(s, 0);
        CHECK(in->rank == 2 && in->dims[0] == n && in->dims[1] == (int64_t)slot,
              "%s: the frame input is [%d, %zu]", name, n, slot);
        vkml_tensor t = {.dtype = VKML_DTYPE_UINT8,
                         .rank = 2,
                         .dims = {n, (int64_t)slot},
                         .data = bytes,
                         .size = (size_t)n * slot};
        CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
        CHECK_OK(vkml_session_run(s, &t, 1, &out, 1, &err), &err);
        CHECK(out.data && out.dims[0] == n, "%s: output batch", name);
        for (int b = 0; out.data && b < n; b++) {
            double *want = reference(&frames[b], &im), worst = 0;
            for (size_t i = 0; i < per; i++)
                worst = fmax(worst, fabs(element(&out, (size_t)b * per + i) - want[i]));
            CHECK(worst <= 2e-3, "%s on %s: image %d differs from its frame's reference by %g",
                  name, target.device >= 0 ? "Vulkan" : "CPU", b, worst);
            free(want);
        }
        vkml_tensor_release(&out);
        vkml_session_destroy(&s);
    }
    free(bytes);
    vkml_model_destroy(&model);
}

int main(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    test_require_vulkan(ctx);
    uint64_t seed = 0x5eed;
    const uint32_t rgb[3] = {0, 1, 2}, bgrx[3] = {2, 1, 0}, argb[3] = {1, 2, 3};

    frame f = make_frame(VKML_FRAME_PACKED_RGB, 13, 9, 3, 3, rgb, &seed);
    check_case(ctx, "RGB stretch NCHW", &f, (image){0, 3, 7, 5, VKML_DTYPE_FLOAT}, NULL);
    f.pp.resize = VKML_RESIZE_STRETCH;
    check_case(ctx, "RGB upscale NCHW", &f, (image){0, 3, 20, 31, VKML_DTYPE_FLOAT}, NULL);
    check_case(ctx, "RGB luma", &f, (image){0, 1, 6, 6, VKML_DTYPE_FLOAT}, NULL);
    free(f.bytes);

    f = make_frame(VKML_FRAME_PACKED_RGB, 13, 9, 1, 4, bgrx, &seed);
    f.pp.resize = VKML_RESIZE_LETTERBOX;
    f.pp.pad_value = 114;
    f.pp.bgr = true;
    f.pp.mean[0] = 0.485f, f.pp.mean[1] = 0.456f, f.pp.mean[2] = 0.406f;
    f.pp.std[0] = 0.229f, f.pp.std[1] = 0.224f, f.pp.std[2] = 0.225f;
    check_case(ctx, "BGRx letterbox NHWC bgr", &f, (image){1, 3, 8, 6, VKML_DTYPE_FLOAT}, NULL);
    free(f.bytes);

    f = make_frame(VKML_FRAME_PACKED_RGB, 10, 7, 2, 4, argb, &seed);
    f.pp.resize = VKML_RESIZE_CROP;
    check_case(ctx, "ARGB crop float16", &f, (image){0, 3, 6, 6, VKML_DTYPE_FLOAT16}, NULL);
    free(f.bytes);

    f = make_frame(VKML_FRAME_GRAY8, 11, 6, 5, 0, NULL, &seed);
    f.pp.scale = 1.0f;
    check_case(ctx, "GRAY8 uint8", &f, (image){0, 3, 5, 9, VKML_DTYPE_UINT8}, NULL);
    free(f.bytes);

    f = make_frame(VKML_FRAME_NV12, 13, 9, 3, 0, NULL, &seed);
    check_case(ctx, "NV12 BT.601 limited", &f, (image){0, 3, 9, 13, VKML_DTYPE_FLOAT}, NULL);
    f.pp.resize = VKML_RESIZE_LETTERBOX;
    check_case(ctx, "NV12 letterbox", &f, (image){0, 3, 12, 8, VKML_DTYPE_FLOAT}, NULL);
    free(f.bytes);

    f = make_frame(VKML_FRAME_I420, 15, 11, 2, 0, NULL, &seed);
    f.pp.matrix = VKML_YUV_BT709;
    f.pp.full_range = true;
    f.pp.resize = VKML_RESIZE_CROP;
    check_case(ctx, "I420 BT.709 full crop NHWC", &f, (image){1, 3, 7, 7, VKML_DTYPE_FLOAT}, NULL);
    /* symbolic batch, height and width, bound by input_shapes */
    const int64_t symbolic[4] = {-1, 3, -1, -1};
    f.pp.resize = VKML_RESIZE_STRETCH;
    check_case(ctx, "I420 symbolic [batch,3,h,w]", &f, (image){0, 3, 5, 8, VKML_DTYPE_FLOAT},
               symbolic);
    free(f.bytes);

    /* 4:2:2 and 4:4:4, 8 and 10 bits (P010's 10 bits at bit 6 of a word), 16-bit samples */
    static const struct {
        const char *name;
        vkml_frame_format format;
        uint32_t bits, shift;
        bool full;
    } yuv[] = {
        {"NV16", VKML_FRAME_NV16, 8, 0, false},        {"Y42B", VKML_FRAME_I422, 0, 0, true},
        {"Y444", VKML_FRAME_I444, 8, 0, false},        {"P010", VKML_FRAME_NV12, 10, 6, false},
        {"I420_10", VKML_FRAME_I420, 10, 0, true},     {"Y444_10", VKML_FRAME_I444, 10, 0, false},
        {"NV16 16-bit", VKML_FRAME_NV16, 16, 0, true},
    };
    for (size_t i = 0; i < sizeof(yuv) / sizeof(yuv[0]); i++) {
        f = make_yuv_frame(yuv[i].format, 13, 9, 3, yuv[i].bits, yuv[i].shift, &seed);
        f.pp.full_range = yuv[i].full;
        f.pp.matrix = i % 2 ? VKML_YUV_BT709 : VKML_YUV_BT601;
        check_case(ctx, yuv[i].name, &f, (image){0, 3, 7, 10, VKML_DTYPE_FLOAT}, NULL);
        f.pp.resize = VKML_RESIZE_LETTERBOX;
        f.pp.scale = 1.0f;
        check_case(ctx, yuv[i].name, &f, (image){1, 3, 12, 8, VKML_DTYPE_UINT8}, NULL);
        free(f.bytes);
    }

    /* a batch of 3 frames, each into its own image (NV12 letterbox: planes and padding) */
    frame batch[3];
    for (int b = 0; b < 3; b++) {
        batch[b] = make_frame(VKML_FRAME_NV12, 13, 9, 3, 0, NULL, &seed);
        batch[b].pp.resize = VKML_RESIZE_LETTERBOX;
    }
    check_batch(ctx, "NV12 letterbox batch 3", batch, 3, (image){0, 3, 8, 10, VKML_DTYPE_FLOAT});
    for (int b = 0; b < 3; b++)
        free(batch[b].bytes);

    /* Letterbox geometry, by hand: 8x4 into 6x6 is scale 0.75, content 6x3 at y 1. */
    vkml_preprocess pp = {.width = 8, .height = 4, .resize = VKML_RESIZE_LETTERBOX};
    vkml_preprocess_geometry g;
    vkml_preprocess_get_geometry(&pp, 6, 6, &g);
    CHECK(g.scale_x == 0.75 && g.scale_y == 0.75 && g.offset_x == 0 && g.offset_y == 1,
          "letterbox geometry %g %g %g %g", g.scale_x, g.scale_y, g.offset_x, g.offset_y);
    /* Crop: 8x4 into 6x6 is scale 1.5, frame x 0 at input x (6 - 12) / 2 = -3. */
    pp.resize = VKML_RESIZE_CROP;
    vkml_preprocess_get_geometry(&pp, 6, 6, &g);
    CHECK(g.scale_x == 1.5 && g.offset_x == -3 && g.offset_y == 0, "crop geometry %g %g %g",
          g.scale_x, g.offset_x, g.offset_y);

    /* Bad descriptions are refused, naming what is wrong. */
    int64_t dims[4] = {1, 3, 4, 4};
    vkml_model *model = identity_model(VKML_DTYPE_FLOAT, dims);
    f = make_frame(VKML_FRAME_I420, 8, 8, 0, 0, NULL, &seed);
    f.pp.plane_offsets[2] += 64;
    vkml_session_params params = {.device = VKML_DEVICE_CPU, .preprocess = &f.pp};
    vkml_session *s = NULL;
    CHECK(vkml_session_create(ctx, model, &params, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "plane 2"),
          "a plane past the frame: %s", err.message);
    f.pp.plane_offsets[2] -= 64;
    f.pp.sample_bits = 7;
    CHECK(vkml_session_create(ctx, model, &params, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "7-bit"),
          "7-bit samples: %s", err.message);
    f.pp.sample_bits = 10; /* 16-bit words: plane 1 at an odd byte */
    CHECK(vkml_session_create(ctx, model, &params, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "odd"),
          "16-bit samples at an odd offset: %s", err.message);
    f.pp.sample_bits = 0;
    f.pp.format = (vkml_frame_format)9;
    CHECK(vkml_session_create(ctx, model, &params, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "format"),
          "a bad format: %s", err.message);
    free(f.bytes);
    vkml_model_destroy(&model);
    dims[1] = 5;
    model = identity_model(VKML_DTYPE_FLOAT, dims);
    f = make_frame(VKML_FRAME_GRAY8, 4, 4, 0, 0, NULL, &seed);
    params.preprocess = &f.pp;
    CHECK(vkml_session_create(ctx, model, &params, &s, &err) == VKML_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "NCHW"),
          "a 5-channel input: %s", err.message);
    CHECK(s == NULL, "no session");
    free(f.bytes);
    vkml_model_destroy(&model);

    check_rects(ctx, &seed);
    vkml_context_destroy(&ctx);
    return test_finish("preprocess");
}
