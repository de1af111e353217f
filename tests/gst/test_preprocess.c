/* vkmlinfer's pre-processing in GstHarness: frames of every format, resize mode, layout
 * and dtype through an Identity model (its output is the model input the element made),
 * on the Vulkan device and on vkml's CPU device, against a reference written here: it
 * reads the frame through GstVideoFrame's component macros and GStreamer's own
 * Kr/Kb, in double. Per-element tolerance: 2e-3 of the normalised value (about 0.5/255
 * of a pixel at std 1); float16 adds 1e-3 relative; uint8 within 1. Also: the input
 * geometry in the meta, symbolic batch and height/width models, bad settings; frames in
 * flight through a size change and in tensor mode; precision=fp16 behind the
 * pre-processing. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"
#include "testutil.h"
#include "gst_testutil.h"

#include <math.h>
#include <string.h>

static gchar *models_dir;

static gchar *
model_path (const gchar * name)
{
  return g_build_filename (models_dir, name, NULL);
}

/* What the element is set to, for the reference. */
typedef struct
{
  const gchar *resize;          /* "stretch", "letterbox", "crop" */
  gdouble pad_value;
  gboolean bgr;
  gdouble scale;                /* 0: the element's default for the dtype */
  gdouble mean[3], std[3];
} Settings;

static const Settings plain = { "stretch", 0, FALSE, 0, {0, 0, 0}, {1, 1, 1} };

/* A frame of random bytes (padding included) for @vinfo. */
static GstBuffer *
random_frame (const GstVideoInfo * vinfo, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (vinfo),
      NULL);
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++) {
    seed = seed * 1103515245u + 12345u;
    map.data[i] = (guint8) (seed >> 16);
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Component @c of pixel (x, y) in its own units (0 .. 2^depth - 1): a byte, or a
 * little-endian word's DEPTH bits at SHIFT as GStreamer's format info says. */
static gdouble
comp_at (const GstVideoFrame * f, guint c, gint x, gint y)
{
  const GstVideoFormatInfo *finfo = f->info.finfo;
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
  const guint8 *d = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);

  /* 16-bit U,V pairs (P010): V is the pair's second word, 2 bytes in (GStreamer 1.22's
   * format table gives P010's V a byte offset of 1, NV12's) */
  if (depth > 8 && GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c) == 4)
    d += (c == 2 ? 2 : 0) - (gint) GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
  if (depth == 8)
    return d[0];
  return ((d[0] | d[1] << 8) >> GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c))
      & ((1u << depth) - 1);
}

/* Component @c bilinearly at (x, y) in that component's own pixels, edges clamped. */
static gdouble
comp_sample (const GstVideoFrame * f, guint c, gdouble x, gdouble y)
{
  gint w = GST_VIDEO_FRAME_COMP_WIDTH (f, c), h =
      GST_VIDEO_FRAME_COMP_HEIGHT (f, c);
  gint x0, y0, x1, y1;
  gdouble fx, fy;

  x = CLAMP (x, 0, w - 1);
  y = CLAMP (y, 0, h - 1);
  x0 = (gint) floor (x);
  y0 = (gint) floor (y);
  x1 = MIN (x0 + 1, w - 1);
  y1 = MIN (y0 + 1, h - 1);
  fx = x - x0;
  fy = y - y0;
  return (1 - fy) * ((1 - fx) * comp_at (f, c, x0, y0) + fx * comp_at (f, c, x1,
          y0)) + fy * ((1 - fx) * comp_at (f, c, x0, y1) + fx * comp_at (f, c,
          x1, y1));
}

/* R, G, B (0..255) at frame position (x, y). */
static void
frame_rgb (const GstVideoFrame * f, gdouble x, gdouble y, gdouble rgb[3])
{
  const GstVideoInfo *vi = &f->info;
  gdouble kr, kb, Y, U, V, ey, pb, pr, r, g, b, cx, cy;
  gdouble top = (1 << GST_VIDEO_INFO_COMP_DEPTH (vi, 0)) - 1;   /* 255, 1023 */
  gdouble unit = (top + 1) / 256;       /* 1 at 8 bits, 4 at 10 */
  guint c;

  if (GST_VIDEO_INFO_IS_RGB (vi)) {
    for (c = 0; c < 3; c++)
      rgb[c] = comp_sample (f, c, x, y);
    return;
  }
  Y = comp_sample (f, 0, x, y);
  if (GST_VIDEO_INFO_IS_GRAY (vi)) {
    rgb[0] = rgb[1] = rgb[2] = Y;
    return;
  }
  /* chroma centred between the luma samples it covers */
  cx = GST_VIDEO_FRAME_COMP_WIDTH (f, 1) < GST_VIDEO_FRAME_WIDTH (f) ?
      (x - 0.5) / 2 : x;
  cy = GST_VIDEO_FRAME_COMP_HEIGHT (f, 1) < GST_VIDEO_FRAME_HEIGHT (f) ?
      (y - 0.5) / 2 : y;
  U = comp_sample (f, 1, cx, cy);
  V = comp_sample (f, 2, cx, cy);
  fail_unless (gst_video_color_matrix_get_Kr_Kb (vi->colorimetry.matrix, &kr,
          &kb));
  if (vi->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255) {
    ey = Y / top;
    pb = (U - 128 * unit) / top;
    pr = (V - 128 * unit) / top;
  } else {
    ey = (Y - 16 * unit) / (219 * unit);
    pb = (U - 128 * unit) / (224 * unit);
    pr = (V - 128 * unit) / (224 * unit);
  }
  r = ey + 2 * (1 - kr) * pr;
  b = ey + 2 * (1 - kb) * pb;
  g = (ey - kr * r - kb * b) / (1 - kr - kb);
  rgb[0] = CLAMP (255 * r, 0, 255);
  rgb[1] = CLAMP (255 * g, 0, 255);
  rgb[2] = CLAMP (255 * b, 0, 255);
}

/* The model input the element should make of @buf: dims [1,C,H,W] or [1,H,W,C]. */
static gdouble *
reference (const GstVideoInfo * vinfo, GstBuffer * buf, const Settings * s,
    gboolean nhwc, gint C, gint H, gint W, vkml_dtype dtype)
{
  GstVideoFrame f;
  gdouble *out = g_new0 (gdouble, C * H * W);
  gdouble fw = GST_VIDEO_INFO_WIDTH (vinfo), fh = GST_VIDEO_INFO_HEIGHT (vinfo);
  gdouble sx = W / fw, sy = H / fh, ox = 0, oy = 0, x0 = 0, x1 = W, y0 = 0, y1 =
      H;
  gdouble scale = s->scale != 0 ? s->scale :
      dtype == VKML_DTYPE_UINT8 ? 1.0 : 1.0 / 255;
  gint x, y, c;

  if (g_str_equal (s->resize, "letterbox")) {
    gdouble k = MIN (sx, sy), cw = round (fw * k), ch = round (fh * k);

    ox = floor ((W - cw) / 2);
    oy = floor ((H - ch) / 2);
    sx = cw / fw;
    sy = ch / fh;
    x0 = ox;
    x1 = ox + cw;
    y0 = oy;
    y1 = oy + ch;
  } else if (g_str_equal (s->resize, "crop")) {
    sx = sy = MAX (sx, sy);
    ox = (W - fw * sx) / 2;
    oy = (H - fh * sy) / 2;
  }
  fail_unless (gst_video_frame_map (&f, (GstVideoInfo *) vinfo, buf,
          GST_MAP_READ));
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      gdouble rgb[3];

      if (x >= x0 && x < x1 && y >= y0 && y < y1)
        frame_rgb (&f, (x + 0.5 - ox) / sx - 0.5, (y + 0.5 - oy) / sy - 0.5,
            rgb);
      else
        rgb[0] = rgb[1] = rgb[2] = s->pad_value;
      for (c = 0; c < C; c++) {
        gdouble v = C == 1 ? 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] :
            rgb[s->bgr ? 2 - c : c];

        v = (v * scale - s->mean[c]) / s->std[c];
        if (dtype == VKML_DTYPE_UINT8)
          v = floor (CLAMP (v, 0, 255) + 0.5);
        out[nhwc ? (y * W + x) * C + c : (c * H + y) * W + x] = v;
      }
    }
  gst_video_frame_unmap (&f);
  return out;
}

static gchar *
launch_line (const gchar * model, const gchar * device, const Settings * s,
    const gchar * extra)
{
  return g_strdup_printf ("vkmlinfer model=\"%s\" device=%s resize=%s "
      "pad-value=%g channel-order=%s scale=%g mean=\"%g,%g,%g\" "
      "std=\"%g,%g,%g\" %s", model, device, s->resize, s->pad_value,
      s->bgr ? "bgr" : "rgb", s->scale, s->mean[0], s->mean[1], s->mean[2],
      s->std[0], s->std[1], s->std[2], extra ? extra : "");
}

/* Pushes one frame of @vinfo and returns the output buffer (its meta checked). */
static GstBuffer *
push_frame (GstHarness * h, const GstVideoInfo * vinfo, GstBuffer ** in)
{
  GstCaps *caps = gst_video_info_to_caps (vinfo);
  GstBuffer *out;

  gst_harness_set_src_caps (h, caps);
  *in = random_frame (vinfo, GST_VIDEO_INFO_WIDTH (vinfo) * 7919u +
      GST_VIDEO_INFO_FORMAT (vinfo));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (*in));
  fail_unless (out != NULL, "no output for %s", GST_VIDEO_INFO_NAME (vinfo));
  fail_unless (gst_buffer_get_vkml_tensor_meta (out) != NULL);
  return out;
}

/* The tensor of @out against the reference for @in. */
static void
check_tensor (GstBuffer * out, const GstVideoInfo * vinfo, GstBuffer * in,
    const Settings * s, gboolean nhwc, gint C, gint H, gint W,
    vkml_dtype dtype, const gchar * what)
{
  const GstVkmlTensorMeta *meta = gst_buffer_get_vkml_tensor_meta (out);
  const GstVkmlTensor *t = gst_vkml_tensor_meta_get (meta, 0);
  gint64 want_dims[4] = { 1, C, H, W };
  gdouble *want;
  GstMapInfo map;
  gsize i, n = (gsize) C * H * W;
  gint bad = 0;

  if (nhwc) {
    want_dims[1] = H;
    want_dims[2] = W;
    want_dims[3] = C;
  }
  fail_unless (t != NULL);
  fail_unless_equals_int (t->dtype, dtype);
  /* a model of one image [C,H,W] or [H,W,C] (rank 3) gets it without the batch */
  fail_unless (t->rank == 4 || t->rank == 3, "%s: rank %u", what, t->rank);
  fail_unless (memcmp (t->dims, want_dims + 4 - t->rank,
          t->rank * sizeof (want_dims[0])) == 0, "%s: dims", what);
  want = reference (vinfo, in, s, nhwc, C, H, W, dtype);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  for (i = 0; i < n && bad < 4; i++) {
    gdouble got = NAN, tol = dtype == VKML_DTYPE_UINT8 ? 1.0 : 2e-3;

    fail_unless (vkml_dtype_value (dtype, map.data, i, &got));
    if (dtype == VKML_DTYPE_FLOAT16)
      tol += 1e-3 * fabs (want[i]);
    if (!(fabs (got - want[i]) <= tol)) {
      GST_ERROR ("%s: element %" G_GSIZE_FORMAT " is %g, reference %g", what,
          i, got, want[i]);
      bad++;
    }
  }
  gst_buffer_unmap (t->data, &map);
  g_free (want);
  fail_unless (bad == 0, "%s: %d elements off the reference (see the log)",
      what, bad);
}

/* One frame of @format (13x9: odd, so chroma rounds up and rows pad) through @model. */
static void
check_format (const gchar * model, const gchar * device, GstVideoFormat format,
    GstVideoColorMatrix matrix, GstVideoColorRange range, const Settings * s,
    gboolean nhwc, gint C, gint H, gint W, vkml_dtype dtype)
{
  gchar *path = model_path (model);
  gchar *launch = launch_line (path, device, s, NULL);
  GstHarness *h = gst_harness_new_parse (launch);
  GstVideoInfo vinfo;
  GstBuffer *in, *out;
  gchar *what;

  fail_unless (gst_video_info_set_format (&vinfo, format, 13, 9));
  if (GST_VIDEO_INFO_IS_YUV (&vinfo)) {
    vinfo.colorimetry.matrix = matrix;
    vinfo.colorimetry.range = range;
  }
  what = g_strdup_printf ("%s %s on %s (%s)", model, GST_VIDEO_INFO_NAME
      (&vinfo), device, s->resize);
  out = push_frame (h, &vinfo, &in);
  check_tensor (out, &vinfo, in, s, nhwc, C, H, W, dtype, what);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_free (what);
  g_free (launch);
  g_free (path);
}

/* Every sink format, on the Vulkan device and on vkml's CPU device. */
GST_START_TEST (test_every_format)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB,
    GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV16, GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_Y444_10LE,
  };
  static const gchar *devices[] = { "0", "cpu" };
  guint i, d;

  for (d = 0; d < G_N_ELEMENTS (devices); d++)
    for (i = 0; i < G_N_ELEMENTS (formats); i++)
      check_format ("id-nchw.onnx", devices[d], formats[i],
          GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_16_235, &plain,
          FALSE, 3, 8, 6, VKML_DTYPE_FLOAT);
}

GST_END_TEST;

/* YUV colorimetry from the caps: BT.709 and full range. */
GST_START_TEST (test_yuv_colorimetry)
{
  check_format ("id-nchw.onnx", "0", GST_VIDEO_FORMAT_NV12,
      GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_16_235, &plain, FALSE,
      3, 8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-nchw.onnx", "0", GST_VIDEO_FORMAT_I420,
      GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_0_255, &plain, FALSE,
      3, 8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-nchw.onnx", "cpu", GST_VIDEO_FORMAT_I420,
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_0_255, &plain, FALSE,
      3, 8, 6, VKML_DTYPE_FLOAT);
  /* 10-bit full range: 0..1023, chroma zero at 512 */
  check_format ("id-nchw.onnx", "0", GST_VIDEO_FORMAT_P010_10LE,
      GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_RANGE_0_255, &plain, FALSE,
      3, 8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-nchw.onnx", "cpu", GST_VIDEO_FORMAT_Y444_10LE,
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_0_255, &plain, FALSE,
      3, 8, 6, VKML_DTYPE_FLOAT);
}

GST_END_TEST;

/* Per-channel mean/std in BGR order; channels-last; uint8 and float16 inputs; one image
 * without a batch dim, CHW and HWC. */
GST_START_TEST (test_normalise_layout_dtype)
{
  Settings s = plain;

  s.bgr = TRUE;
  s.mean[0] = 0.485;
  s.mean[1] = 0.456;
  s.mean[2] = 0.406;
  s.std[0] = 0.229;
  s.std[1] = 0.224;
  s.std[2] = 0.225;
  check_format ("id-nchw.onnx", "0", GST_VIDEO_FORMAT_RGB, 0, 0, &s, FALSE, 3,
      8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-nhwc.onnx", "0", GST_VIDEO_FORMAT_BGRx, 0, 0, &s, TRUE, 3,
      8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-u8.onnx", "0", GST_VIDEO_FORMAT_NV12,
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_16_235, &plain, FALSE,
      3, 8, 6, VKML_DTYPE_UINT8);
  check_format ("id-u8.onnx", "cpu", GST_VIDEO_FORMAT_RGBA, 0, 0, &plain, FALSE,
      3, 8, 6, VKML_DTYPE_UINT8);
  check_format ("id-f16.onnx", "0", GST_VIDEO_FORMAT_I420,
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_16_235, &s, FALSE, 3,
      8, 6, VKML_DTYPE_FLOAT16);
  check_format ("id-gray.onnx", "0", GST_VIDEO_FORMAT_RGB, 0, 0, &plain, FALSE,
      1, 8, 6, VKML_DTYPE_FLOAT);
  /* one image, no batch dim (torchvision's detectors): [3,8,6] and [8,6,3] */
  check_format ("id-chw.onnx", "0", GST_VIDEO_FORMAT_RGB, 0, 0, &s, FALSE, 3,
      8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-chw.onnx", "cpu", GST_VIDEO_FORMAT_NV12,
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_16_235, &s, FALSE, 3,
      8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-hwc.onnx", "0", GST_VIDEO_FORMAT_BGRx, 0, 0, &s, TRUE, 3,
      8, 6, VKML_DTYPE_FLOAT);
}

GST_END_TEST;

/* Letterbox (13x9 into 6x8: content 6x4 at y 2, 114 around) and crop (scale 8/9,
 * frame x 0 at input x (6 - 13 * 8/9) / 2): values and the meta's geometry. */
GST_START_TEST (test_letterbox_and_crop)
{
  Settings s = plain;
  const GstVkmlTensorMeta *meta;
  gchar *path = model_path ("id-nchw.onnx"), *launch;
  GstHarness *h;
  GstVideoInfo vinfo;
  GstBuffer *in, *out;

  s.resize = "letterbox";
  s.pad_value = 114;
  check_format ("id-nchw.onnx", "0", GST_VIDEO_FORMAT_NV12,
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_16_235, &s, FALSE, 3,
      8, 6, VKML_DTYPE_FLOAT);
  check_format ("id-nchw.onnx", "cpu", GST_VIDEO_FORMAT_RGB, 0, 0, &s, FALSE,
      3, 8, 6, VKML_DTYPE_FLOAT);

  launch = launch_line (path, "0", &s, NULL);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 13, 9));
  out = push_frame (h, &vinfo, &in);
  meta = gst_buffer_get_vkml_tensor_meta (out);
  fail_unless (meta->has_geometry);
  fail_unless_equals_int (meta->geometry.frame_width, 13);
  fail_unless_equals_int (meta->geometry.frame_height, 9);
  fail_unless_equals_int (meta->geometry.input_width, 6);
  fail_unless_equals_int (meta->geometry.input_height, 8);
  fail_unless_equals_float (meta->geometry.scale_x, 6.0 / 13);
  fail_unless_equals_float (meta->geometry.scale_y, 4.0 / 9);
  fail_unless_equals_float (meta->geometry.offset_x, 0);
  fail_unless_equals_float (meta->geometry.offset_y, 2);
  {
    const GstVkmlTensor *t = gst_vkml_tensor_meta_get (meta, 0);
    gfloat row0[6], row7[6];

    /* channel 0, rows 0 and 7: all border */
    fail_unless (gst_buffer_extract (t->data, 0, row0, sizeof (row0)) ==
        sizeof (row0));
    fail_unless (gst_buffer_extract (t->data, 7 * 6 * 4, row7,
            sizeof (row7)) == sizeof (row7));
    for (guint x = 0; x < 6; x++) {
      fail_unless (fabsf (row0[x] - 114.0f / 255) < 1e-6f, "%f", row0[x]);
      fail_unless (fabsf (row7[x] - 114.0f / 255) < 1e-6f, "%f", row7[x]);
    }
  }
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);

  s.resize = "crop";
  check_format ("id-nchw.onnx", "0", GST_VIDEO_FORMAT_I420,
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_RANGE_16_235, &s, FALSE, 3,
      8, 6, VKML_DTYPE_FLOAT);
  launch = launch_line (path, "0", &s, NULL);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  out = push_frame (h, &vinfo, &in);
  meta = gst_buffer_get_vkml_tensor_meta (out);
  fail_unless (meta->has_geometry);
  fail_unless_equals_float (meta->geometry.scale_x, 8.0 / 9);
  fail_unless_equals_float (meta->geometry.scale_y, 8.0 / 9);
  fail_unless (fabs (meta->geometry.offset_x - (6 - 13 * 8.0 / 9) / 2) < 1e-12);
  fail_unless_equals_float (meta->geometry.offset_y, 0);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* Output dims of the tensor of one frame of @w x @h RGB through @h. */
static void
check_output_dims (GstHarness * h, gint w, gint hh, const gint64 * dims)
{
  GstVideoInfo vinfo;
  GstBuffer *in, *out;
  const GstVkmlTensor *t;

  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, w, hh));
  out = push_frame (h, &vinfo, &in);
  t = gst_vkml_tensor_meta_get (gst_buffer_get_vkml_tensor_meta (out), 0);
  fail_unless (t && t->rank == 4);
  fail_unless (memcmp (t->dims, dims, 4 * sizeof (gint64)) == 0,
      "dims [%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
      G_GINT64_FORMAT "]", t->dims[0], t->dims[1], t->dims[2], t->dims[3]);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

/* A symbolic batch [batch,3,8,6] runs with batch 1 (it used to be refused). */
GST_START_TEST (test_symbolic_batch)
{
  check_format ("id-batch.onnx", "0", GST_VIDEO_FORMAT_RGB, 0, 0, &plain,
      FALSE, 3, 8, 6, VKML_DTYPE_FLOAT);
}

GST_END_TEST;

/* Symbolic height and width [1,3,h,w] then MaxPool 2x2: bound to the video's size
 * (12x10 -> [1,3,5,6]), planned again on a new size (20x6 -> [1,3,3,10]), or to
 * input-size (8x4 -> [1,3,2,4]); not to 1 (a MaxPool error). */
GST_START_TEST (test_symbolic_height_width)
{
  gchar *path = model_path ("id-hw-pool.onnx"), *launch;
  const gint64 a[4] = { 1, 3, 5, 6 }, b[4] = { 1, 3, 3, 10 }, c[4] = { 1, 3, 2,
    4
  };
  GstHarness *h;

  launch = launch_line (path, "0", &plain, NULL);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  check_output_dims (h, 12, 10, a);
  check_output_dims (h, 20, 6, b);
  gst_harness_teardown (h);

  launch = launch_line (path, "cpu", &plain, "input-size=8x4");
  h = gst_harness_new_parse (launch);
  g_free (launch);
  check_output_dims (h, 12, 10, c);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* Bad pre-processing settings: LIBRARY/SETTINGS naming the property. */
GST_START_TEST (test_bad_settings)
{
  static const gchar *bad[][2] = {
    {"mean=\"1,2\"", "'mean'"}, {"std=\"0\"", "'std'"},
    {"input-size=\"64\"", "'input-size'"},
  };
  gchar *path = model_path ("id-nchw.onnx");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" %s", path,
        bad[i][0]);
    GstElement *e = gst_parse_launch (launch, NULL);
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *gerr = NULL;

    gst_element_set_bus (e, bus);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s: no error", bad[i][0]);
    gst_message_parse_error (msg, &gerr, NULL);
    fail_unless (g_error_matches (gerr, GST_LIBRARY_ERROR,
            GST_LIBRARY_ERROR_SETTINGS), "%s", gerr->message);
    fail_unless (strstr (gerr->message, bad[i][1]) != NULL, "%s",
        gerr->message);
    g_error_free (gerr);
    gst_message_unref (msg);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
    g_free (launch);
  }
  g_free (path);
}

GST_END_TEST;

/* Tensor caps in (NNStreamer's other/tensors): no pre-processing; the symbolic model
 * [1,3,h,w] + MaxPool 2x2 is bound from the caps (dimensions 6:4:3:1 is [1,3,4,6]) and
 * offers its output as other/tensors (3:2:3:1, float32); the output memory is the
 * max of each 2x2 block of the input. Wrong types are refused at negotiation. */
GST_START_TEST (test_tensor_caps)
{
  gchar *path = model_path ("id-hw-pool.onnx"), *launch;
  const GstStructure *st;
  GstHarness *h;
  GstBuffer *in, *out;
  GstCaps *caps;
  GstMapInfo map;
  gfloat x[3 * 4 * 6], y[3 * 2 * 3];
  guint i, c, r, k;

  for (i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = (gfloat) ((i * 37) % 23) - 11.5f;
  launch = g_strdup_printf ("vkmlinfer model=\"%s\"", path);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  gst_harness_set_src_caps_str (h, "other/tensors,format=static,num_tensors=1,"
      "dimensions=6:4:3:1,types=float32,framerate=0/1");
  in = gst_buffer_new_memdup (x, sizeof (x));
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  st = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (st, "other/tensors"));
  fail_unless_equals_string (gst_structure_get_string (st, "dimensions"),
      "3:2:3:1");
  fail_unless_equals_string (gst_structure_get_string (st, "types"), "float32");
  gst_caps_unref (caps);
  fail_unless_equals_int (gst_buffer_n_memory (out), 1);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, sizeof (y));
  memcpy (y, map.data, sizeof (y));
  gst_buffer_unmap (out, &map);
  for (c = 0; c < 3; c++)
    for (r = 0; r < 2; r++)
      for (k = 0; k < 3; k++) {
        const gfloat *b = x + c * 24 + 2 * r * 6 + 2 * k;
        gfloat m = MAX (MAX (b[0], b[1]), MAX (b[6], b[7]));

        fail_unless_equals_float (y[(c * 2 + r) * 3 + k], m);
      }
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* uint8 tensors for a float model: not negotiated */
  launch = g_strdup_printf ("vkmlinfer model=\"%s\"", path);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  gst_harness_set_src_caps_str (h, "other/tensors,format=static,num_tensors=1,"
      "dimensions=6:4:3:1,types=uint8,framerate=0/1");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              72, NULL)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* Frames in flight (max-in-flight=4) through a new video size: three 13x9 frames are
 * still held when the caps change to 20x6 and three more follow; every frame's tensor
 * matches the reference for its own bytes and size, and its meta's geometry names its
 * own frame (letterbox into 6x8: scale 6/13, then 6/20). */
GST_START_TEST (test_inflight_new_size)
{
  static const Settings box =
      { "letterbox", 114, FALSE, 0, {0, 0, 0}, {1, 1, 1} };
  gchar *path = model_path ("id-nchw.onnx");
  gchar *launch = launch_line (path, "0", &box, "max-in-flight=4");
  GstHarness *h = gst_harness_new_parse (launch);
  GstVideoInfo vinfo[2];
  GstBuffer *in[6];
  guint i;

  fail_unless (gst_video_info_set_format (&vinfo[0], GST_VIDEO_FORMAT_RGB, 13,
          9));
  fail_unless (gst_video_info_set_format (&vinfo[1], GST_VIDEO_FORMAT_RGB, 20,
          6));
  for (i = 0; i < 6; i++) {
    if (i % 3 == 0)
      gst_harness_set_src_caps (h, gst_video_info_to_caps (&vinfo[i / 3]));
    in[i] = random_frame (&vinfo[i / 3], 1000u + i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  for (i = 0; i < 6; i++) {
    GstBuffer *out = gst_harness_pull (h);
    const GstVkmlTensorMeta *meta;
    gchar *what = g_strdup_printf ("frame %u", i);

    fail_unless (out != NULL, "%s: none", what);
    meta = gst_buffer_get_vkml_tensor_meta (out);
    fail_unless (meta != NULL && meta->has_geometry, "%s: no geometry", what);
    fail_unless_equals_int (meta->geometry.frame_width,
        GST_VIDEO_INFO_WIDTH (&vinfo[i / 3]));
    fail_unless_equals_int (meta->geometry.frame_height,
        GST_VIDEO_INFO_HEIGHT (&vinfo[i / 3]));
    fail_unless (fabs (meta->geometry.scale_x - 6.0 /
            GST_VIDEO_INFO_WIDTH (&vinfo[i / 3])) < 1e-9, "%s: scale %g", what,
        meta->geometry.scale_x);
    check_tensor (out, &vinfo[i / 3], in[i], &box, FALSE, 3, 8, 6,
        VKML_DTYPE_FLOAT, what);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
    g_free (what);
  }
  gst_harness_teardown (h);
  g_free (launch);
  g_free (path);
}

GST_END_TEST;

/* precision=fp16-always with the pre-processing in front (the session's float16 graph
 * after ImagePreprocess, not timed against float32): within the reference's tolerance,
 * and not bit-equal to float32 (at least one value shows float16 rounding, so the fp16
 * graph did run). */
GST_START_TEST (test_preprocess_fp16)
{
  gchar *path = model_path ("id-nchw.onnx");
  gchar *launch = launch_line (path, "0", &plain, "precision=fp16-always");
  GstHarness *h = gst_harness_new_parse (launch);
  const GstVkmlTensor *t;
  GstVideoInfo vinfo;
  GstBuffer *in, *out;
  GstMapInfo map;
  gdouble *want;
  gsize i, rounded = 0;

  fail_unless (gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, 13, 9));
  out = push_frame (h, &vinfo, &in);
  check_tensor (out, &vinfo, in, &plain, FALSE, 3, 8, 6, VKML_DTYPE_FLOAT,
      "fp16");
  want = reference (&vinfo, in, &plain, FALSE, 3, 8, 6, VKML_DTYPE_FLOAT);
  t = gst_vkml_tensor_meta_get (gst_buffer_get_vkml_tensor_meta (out), 0);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  for (i = 0; i < 3 * 8 * 6; i++)
    rounded += fabs (((const gfloat *) map.data)[i] - want[i]) > 1e-5;
  gst_buffer_unmap (t->data, &map);
  fail_unless (rounded > 0, "no value shows float16 rounding");
  g_free (want);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_free (launch);
  g_free (path);
}

GST_END_TEST;

/* Tensor caps with frames in flight (max-in-flight=4): five different tensors pushed
 * before any is pulled come out in order, each the 2x2 max-pool of its own input. */
GST_START_TEST (test_tensor_caps_inflight)
{
  gchar *path = model_path ("id-hw-pool.onnx");
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" max-in-flight=4",
      path);
  GstHarness *h = gst_harness_new_parse (launch);
  gfloat x[5][3 * 4 * 6];
  guint f, i, c, r, k;

  gst_harness_set_src_caps_str (h, "other/tensors,format=static,num_tensors=1,"
      "dimensions=6:4:3:1,types=float32,framerate=0/1");
  for (f = 0; f < 5; f++) {
    for (i = 0; i < G_N_ELEMENTS (x[f]); i++)
      x[f][i] = (gfloat) (((i + 5 * f) * 37) % 23) - 11.5f + f;
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_memdup (x[f], sizeof (x[f]))), GST_FLOW_OK);
  }
  for (f = 0; f < 5; f++) {
    GstBuffer *out = gst_harness_pull (h);
    GstMapInfo map;
    const gfloat *y;

    fail_unless (out != NULL);
    fail_unless_equals_int (gst_buffer_n_memory (out), 1);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, 3 * 2 * 3 * sizeof (gfloat));
    y = (const gfloat *) map.data;
    for (c = 0; c < 3; c++)
      for (r = 0; r < 2; r++)
        for (k = 0; k < 3; k++) {
          const gfloat *b = x[f] + c * 24 + 2 * r * 6 + 2 * k;

          fail_unless_equals_float (y[(c * 2 + r) * 3 + k],
              MAX (MAX (b[0], b[1]), MAX (b[6], b[7])));
        }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  g_free (launch);
  g_free (path);
}

GST_END_TEST;

static Suite *
vkml_preprocess_suite (void)
{
  Suite *s = suite_create ("vkml-preprocess");
  TCase *tc = tcase_create ("general");
  const gchar *build = g_getenv ("VKML_BUILD_ROOT");

  (void) test_failures;         /* testutil.h's counter; GstCheck counts here */
  if (!build) {
    fprintf (stderr, "VKML_BUILD_ROOT is not set: run through meson test\n");
    exit (1);
  }
  models_dir = g_build_filename (build, "tests", "gst", NULL);
  gst_test_require_vulkan_device ();
  if (!GST_ELEMENT_REGISTER (vkmlinfer, NULL)) {
    fprintf (stderr, "could not register vkmlinfer\n");
    exit (1);
  }
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_yuv_colorimetry);
  tcase_add_test (tc, test_normalise_layout_dtype);
  tcase_add_test (tc, test_letterbox_and_crop);
  tcase_add_test (tc, test_symbolic_batch);
  tcase_add_test (tc, test_symbolic_height_width);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_test (tc, test_tensor_caps);
  tcase_add_test (tc, test_inflight_new_size);
  tcase_add_test (tc, test_preprocess_fp16);
  tcase_add_test (tc, test_tensor_caps_inflight);
  return s;
}

GST_CHECK_MAIN (vkml_preprocess);
