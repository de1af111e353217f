/* vkmloverlay: the box outline changes exactly the pixels of its edges and nothing
 * else, in packed (RGB, BGRx) and planar (I420, NV12) frames; labels stay in the tag
 * above the box. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmloverlay.h"

#define W 64
#define H 48
/* The box: x 10..29, y 8..19, outline 2 pixels wide; class 3 of the palette. */
#define BX 10
#define BY 8
#define BW 20
#define BH 12
#define T 2
static const guint8 class3_rgb[3] = { 214, 39, 40 };

/* Background values of components 0, 1, 2 (R,G,B or Y,U,V). */
static const guint8 background[3] = { 50, 60, 70 };

static gboolean
on_outline (gint x, gint y)
{
  gboolean inside = x >= BX && x < BX + BW && y >= BY && y < BY + BH;
  gboolean core = x >= BX + T && x < BX + BW - T && y >= BY + T
      && y < BY + BH - T;

  return inside && !core;
}

/* The ink of class 3 in the frame's components: RGB, or BT.601 limited-range YUV
 * from its defining formula. */
static void
expected_ink (gboolean yuv, gdouble ink[3])
{
  gdouble r = class3_rgb[0], g = class3_rgb[1], b = class3_rgb[2];

  if (!yuv) {
    ink[0] = r, ink[1] = g, ink[2] = b;
    return;
  }
  ink[0] = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255;
  ink[1] = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255;
  ink[2] = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255;
}

static GstBuffer *
frame_with_box (const GstVideoInfo * info)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoRegionOfInterestMeta *roi;
  GstVideoFrame frame;
  guint c;
  gint x, y;

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  /* Everything (padding, alpha) 0xAB, then the components their background. */
  for (c = 0; c < GST_VIDEO_FRAME_N_PLANES (&frame); c++)
    memset (GST_VIDEO_FRAME_PLANE_DATA (&frame, c), 0xAB,
        GST_VIDEO_FRAME_PLANE_STRIDE (&frame, c) *
        GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c == 0 ? 0 : 1));
  for (c = 0; c < 3; c++)
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&frame, c); x++)
        ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, c))[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&frame, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c)] = background[c];
  gst_video_frame_unmap (&frame);
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "car", BX, BY, BW,
      BH);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "class-id", G_TYPE_INT, 3, "score",
          G_TYPE_FLOAT, 0.9f, NULL));
  return buf;
}

/* Whether a component sample (cx, cy) of component @c covers an outline pixel. */
static gboolean
sample_on_outline (const GstVideoFormatInfo * finfo, guint c, gint cx, gint cy)
{
  gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
  gint hs = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  gint x, y;

  for (y = cy << hs; y < (cy + 1) << hs; y++)
    for (x = cx << ws; x < (cx + 1) << ws; x++)
      if (on_outline (x, y))
        return TRUE;
  return FALSE;
}

static void
check_outline (GstVideoFormat format)
{
  GstVideoInfo info;
  GstHarness *h = gst_harness_new_parse ("vkmloverlay thickness=2 "
      "draw-labels=false");
  GstBuffer *in, *out, *ref;
  GstVideoFrame got, want;
  gdouble ink[3];
  guint c, changed = 0, plane;
  gint x, y;

  gst_video_info_set_format (&info, format, W, H);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  expected_ink (GST_VIDEO_INFO_IS_YUV (&info), ink);
  in = frame_with_box (&info);
  ref = gst_buffer_copy_deep (in);
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless (gst_video_frame_map (&got, &info, out, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&want, &info, ref, GST_MAP_READ));
  /* Every component sample: on the outline the ink, elsewhere untouched. */
  for (c = 0; c < 3; c++) {
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&got, c); y++) {
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&got, c); x++) {
        gsize off = y * GST_VIDEO_FRAME_COMP_STRIDE (&got, c)
            + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&got, c);
        guint8 v = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&got, c))[off];

        if (sample_on_outline (info.finfo, c, x, y)) {
          fail_unless (fabs (v - ink[c]) <= 1.0, "%s comp %u (%d,%d): %u, "
              "want %.1f", gst_video_format_to_string (format), c, x, y, v,
              ink[c]);
          changed++;
        } else {
          fail_unless_equals_int (v, background[c]);
        }
      }
    }
  }
  fail_unless (changed > 0);
  /* And no other byte (alpha, padding) changed: the frames differ only there. */
  for (plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&got); plane++) {
    const guint8 *a = GST_VIDEO_FRAME_PLANE_DATA (&got, plane);
    const guint8 *b = GST_VIDEO_FRAME_PLANE_DATA (&want, plane);
    gsize i, n = GST_VIDEO_FRAME_PLANE_STRIDE (&got, plane) *
        GST_VIDEO_FRAME_COMP_HEIGHT (&got, plane == 0 ? 0 : 1);
    guint diff = 0;

    for (i = 0; i < n; i++)
      diff += a[i] != b[i];
    if (plane == 0 && !GST_VIDEO_INFO_IS_YUV (&info))
      fail_unless_equals_int (diff, 3 * (BW * BH - (BW - 2 * T) * (BH -
                  2 * T)));
  }
  gst_video_frame_unmap (&got);
  gst_video_frame_unmap (&want);
  gst_buffer_unref (out);
  gst_buffer_unref (ref);
  gst_harness_teardown (h);
}

GST_START_TEST (test_outline_packed)
{
  check_outline (GST_VIDEO_FORMAT_RGB);
  check_outline (GST_VIDEO_FORMAT_BGRx);
  check_outline (GST_VIDEO_FORMAT_ARGB);
}

GST_END_TEST;

GST_START_TEST (test_outline_planar)
{
  check_outline (GST_VIDEO_FORMAT_I420);
  check_outline (GST_VIDEO_FORMAT_NV12);
}

GST_END_TEST;

/* With labels (Pango), pixels change only on the outline and in a tag that sits
 * on the box's top edge, above it, starting at its left edge; some do change there. */
GST_START_TEST (test_label_above_box)
{
  GstVideoInfo info;
  GstHarness *h = gst_harness_new_parse ("vkmloverlay thickness=2");
  GstBuffer *in, *out;
  GstVideoFrame got;
  guint tag_pixels = 0;
  gint x, y;
  GstCaps *caps;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, W, H);
  caps = gst_video_info_to_caps (&info);
  gst_harness_set_src_caps (h, caps);
  in = frame_with_box (&info);
  /* move the box down to leave room for the tag */
  ((GstVideoRegionOfInterestMeta *) gst_buffer_get_meta (in,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))->y = BY + 24;
  out = gst_harness_push_and_pull (h, in);
  fail_unless (gst_video_frame_map (&got, &info, out, GST_MAP_READ));
  for (y = 0; y < H; y++) {
    for (x = 0; x < W; x++) {
      const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&got, 0)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&got, 0) + 3 * x;
      gboolean same = p[0] == background[0] && p[1] == background[1]
          && p[2] == background[2];

      if (on_outline (x, y - 24))
        continue;
      if (y < BY + 24 && x >= BX)
        tag_pixels += !same;
      else
        fail_unless (same, "(%d,%d) changed", x, y);
    }
  }
#ifdef HAVE_PANGOCAIRO
  fail_unless (tag_pixels > 50, "only %u tag pixels", tag_pixels);
#else
  fail_unless_equals_int (tag_pixels, 0);
#endif
  gst_video_frame_unmap (&got);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* thickness above 3 (5 here): the left edge is 5 pixels wide, no more. */
GST_START_TEST (test_thick_outline)
{
  GstVideoInfo info;
  GstHarness *h = gst_harness_new_parse ("vkmloverlay thickness=5 "
      "draw-labels=false");
  GstBuffer *out;
  GstVideoFrame got;
  const guint8 *row;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, W, H);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  out = gst_harness_push_and_pull (h, frame_with_box (&info));
  fail_unless (gst_video_frame_map (&got, &info, out, GST_MAP_READ));
  /* row BY + 6 is below the top edge's 5 rows and above the bottom edge's */
  row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&got, 0) + (BY + 6) *
      GST_VIDEO_FRAME_PLANE_STRIDE (&got, 0);
  fail_unless (memcmp (row + 3 * (BX + 4), class3_rgb, 3) == 0);
  fail_unless (memcmp (row + 3 * (BX + 5), background, 3) == 0);
  fail_unless (memcmp (row + 3 * (BX + BW - 5), class3_rgb, 3) == 0);
  fail_unless (memcmp (row + 3 * (BX + BW - 6), background, 3) == 0);
  gst_video_frame_unmap (&got);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
vkml_overlay_suite (void)
{
  Suite *s = suite_create ("vkml_overlay");
  TCase *tc = tcase_create ("general");

  if (!GST_ELEMENT_REGISTER (vkmloverlay, NULL))
    g_error ("cannot register vkmloverlay");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_outline_packed);
  tcase_add_test (tc, test_outline_planar);
  tcase_add_test (tc, test_label_above_box);
  tcase_add_test (tc, test_thick_outline);
  return s;
}

GST_CHECK_MAIN (vkml_overlay);
