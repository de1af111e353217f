/* vkmltrack as an element, on hand-made ROI metas: ids kept while objects move, the
 * "tracking" parameter's fields, predicted boxes on frames the detector skipped (SORT
 * moves them, IoU keeps them), a detector frame without detections, the detector's
 * model-id, tracks ended after max-missed frames, ROIs that are not detections, and
 * vkmloverlay drawing the track id. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmloverlay.h"
#include "gstvkmltensormeta.h"
#include "gstvkmltrack.h"

#include <string.h>

#define FW 320
#define FH 240
/* The objects move this many pixels a frame to the right. */
#define SPEED 4

static GstHarness *
track_harness (const gchar * props)
{
  gchar *launch = g_strdup_printf ("vkmltrack %s", props ? props : "");
  GstHarness *h = gst_harness_new_parse (launch);
  GstVideoInfo vinfo;

  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, FW, FH);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&vinfo));
  g_free (launch);
  return h;
}

/* A frame as a detector leaves it: a whole-frame tensor meta of @model_id (NULL:
 * none) and @n objects, object i at (20 + SPEED * frame, 20 + 60 i), 40 x 30. */
static GstBuffer *
detector_frame (guint frame, guint n, const gchar * model_id)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, FW * FH * 3, NULL);
  guint i;

  GST_BUFFER_PTS (buf) = frame * GST_SECOND / 30;
  if (model_id)
    gst_vkml_tensor_meta_set_model_id (gst_buffer_add_vkml_tensor_meta (buf),
        model_id);
  for (i = 0; i < n; i++) {
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (buf, "car",
        20 + SPEED * frame, 20 + 60 * i, 40, 30);

    gst_video_region_of_interest_meta_add_param (roi,
        gst_structure_new ("detection", "label", G_TYPE_STRING, "car",
            "class-id", G_TYPE_INT, 2, "score", G_TYPE_FLOAT, 0.8f, NULL));
  }
  return buf;
}

typedef struct
{
  guint x, y;
  guint64 id;
  guint hits;
  gboolean predicted;
} Seen;

/* The tracked ROIs of @buf, in order; fails on a ROI without a "tracking" param. */
static guint
tracked (GstBuffer * buf, Seen * out, guint max)
{
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  guint n = 0;

  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstStructure *t =
        gst_video_region_of_interest_meta_get_param (roi, "tracking");

    fail_unless (t != NULL, "a ROI without tracking");
    fail_unless (n < max);
    out[n].x = roi->x;
    out[n].y = roi->y;
    fail_unless (gst_structure_get (t, "id", G_TYPE_UINT64, &out[n].id,
            "hits", G_TYPE_UINT, &out[n].hits, "predicted", G_TYPE_BOOLEAN,
            &out[n].predicted, NULL));
    n++;
  }
  return n;
}

static guint
push_and_track (GstHarness * h, GstBuffer * in, Seen * out, guint max)
{
  GstBuffer *buf = gst_harness_push_and_pull (h, in);
  guint n;

  fail_unless (buf != NULL);
  n = tracked (buf, out, max);
  gst_buffer_unref (buf);
  return n;
}

/* Two objects over 5 frames: ids 1 and 2 on every frame, hits counting up. */
GST_START_TEST (test_ids_kept)
{
  GstHarness *h = track_harness (NULL);
  guint f;

  for (f = 0; f < 5; f++) {
    Seen s[4];
    guint n = push_and_track (h, detector_frame (f, 2, "det"), s, 4);

    fail_unless_equals_int (n, 2);
    fail_unless_equals_uint64 (s[0].id, 1);
    fail_unless_equals_uint64 (s[1].id, 2);
    fail_unless_equals_int (s[0].hits, f + 1);
    fail_unless (!s[0].predicted && !s[1].predicted);
    fail_unless_equals_int (s[0].x, 20 + SPEED * f);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames with neither tensors nor detections are frames the detector skipped: the
 * tracks go out at their predictions (SORT: moving on; IoU: where they were). */
static void
check_skipped (const gchar * props, gint expected_step, guint tolerance)
{
  GstHarness *h = track_harness (props);
  guint f, k;

  for (f = 0; f < 6; f++) {
    Seen s[4];

    push_and_track (h, detector_frame (f, 2, "det"), s, 4);
  }
  for (k = 1; k <= 3; k++) {
    Seen s[4];
    guint n = push_and_track (h, detector_frame (5 + k, 0, NULL), s, 4);
    gint want = 20 + SPEED * 5 + expected_step * (gint) k;

    fail_unless_equals_int (n, 2);
    fail_unless_equals_uint64 (s[0].id, 1);
    fail_unless_equals_uint64 (s[1].id, 2);
    fail_unless (s[0].predicted && s[1].predicted);
    fail_unless (ABS ((gint) s[0].x - want) <= (gint) tolerance,
        "%s: skipped frame %u at x %u, want %d", props, k, s[0].x, want);
    fail_unless_equals_int (s[1].y, 80);
  }
  /* the detector again: the same ids, detected */
  {
    Seen s[4];
    guint n = push_and_track (h, detector_frame (9, 2, "det"), s, 4);

    fail_unless_equals_int (n, 2);
    fail_unless (s[0].id == 1 && s[1].id == 2 && !s[0].predicted);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_skipped_frames_predicted)
{
  check_skipped ("tracker=sort", SPEED, 1);
  check_skipped ("tracker=sort matching=greedy", SPEED, 1);
  check_skipped ("tracker=iou", 0, 0);
}

GST_END_TEST;

/* The detector ran (its tensors are there) and found nothing: no prediction goes out;
 * with model-id set, another model's tensors do not count as the detector's. */
GST_START_TEST (test_detector_frame_without_objects)
{
  GstHarness *h = track_harness ("model-id=det");
  Seen s[4];

  push_and_track (h, detector_frame (0, 2, "det"), s, 4);
  fail_unless_equals_int (push_and_track (h, detector_frame (1, 0, "det"), s,
          4), 0);
  /* the tracks were missed once, so they do not go out on a skipped frame either */
  fail_unless_equals_int (push_and_track (h, detector_frame (2, 0, "other"), s,
          4), 0);
  push_and_track (h, detector_frame (3, 2, "det"), s, 4);
  fail_unless (s[0].id == 1 && s[1].id == 2);
  fail_unless_equals_int (push_and_track (h, detector_frame (4, 0, "other"), s,
          4), 2);
  fail_unless (s[0].predicted);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* max-missed=2: an object missing for 2 frames keeps its id, for 3 it gets a new one. */
GST_START_TEST (test_max_missed)
{
  GstHarness *h = track_harness ("max-missed=2 tracker=iou");
  Seen s[4];
  guint f = 0, i;

  push_and_track (h, detector_frame (f++, 1, "det"), s, 4);
  for (i = 0; i < 2; i++)
    push_and_track (h, detector_frame (f++, 0, "det"), s, 4);
  push_and_track (h, detector_frame (f++, 1, "det"), s, 4);
  fail_unless_equals_uint64 (s[0].id, 1);
  for (i = 0; i < 3; i++)
    push_and_track (h, detector_frame (f++, 0, "det"), s, 4);
  push_and_track (h, detector_frame (f++, 1, "det"), s, 4);
  fail_unless_equals_uint64 (s[0].id, 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* min-hits=2: the first detection has no id; ROIs that are no detections (a
 * whole-frame classification) pass untouched; empty boxes do not crash. */
GST_START_TEST (test_min_hits_and_other_rois)
{
  GstHarness *h = track_harness ("min-hits=2");
  GstBuffer *in = detector_frame (0, 1, "det"), *out;
  GstVideoRegionOfInterestMeta *cls, *roi;
  gpointer state = NULL;
  Seen s[4];

  cls = gst_buffer_add_video_region_of_interest_meta (in, "red", 0, 0, FW, FH);
  gst_video_region_of_interest_meta_add_param (cls,
      gst_structure_new ("classification", "label", G_TYPE_STRING, "red",
          NULL));
  roi = gst_buffer_add_video_region_of_interest_meta (in, "dot", 5, 5, 0, 0);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new_empty ("detection"));
  out = gst_harness_push_and_pull (h, in);
  while ((roi = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (out, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    fail_if (gst_video_region_of_interest_meta_get_param (roi, "tracking"));
  gst_buffer_unref (out);
  fail_unless_equals_int (push_and_track (h, detector_frame (1, 1, "det"), s,
          4), 1);
  fail_unless_equals_uint64 (s[0].id, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush (a seek) ends the tracks: no prediction right after it, and the objects seen
 * again get new ids (3, 4), never the old ones. */
GST_START_TEST (test_flush_ends_tracks)
{
  GstHarness *h = track_harness (NULL);
  GstSegment seg;
  Seen s[4];

  push_and_track (h, detector_frame (0, 2, "det"), s, 4);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (push_and_track (h, detector_frame (1, 0, NULL), s,
          4), 0);
  fail_unless_equals_int (push_and_track (h, detector_frame (2, 2, "det"), s,
          4), 2);
  fail_unless (s[0].id == 3 && s[1].id == 4, "ids %" G_GUINT64_FORMAT ", %"
      G_GUINT64_FORMAT, s[0].id, s[1].id);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* vkmloverlay after vkmltrack draws "#1 car" where it draws "car" without: the frames
 * differ in the tag above the box only (with Pango; without, they are the same). */
GST_START_TEST (test_overlay_draws_track_id)
{
  GstHarness *with = track_harness (NULL);
  GstHarness *bare = gst_harness_new_parse ("vkmloverlay");
  GstBuffer *in = detector_frame (0, 1, "det"), *a, *b;
  GstHarness *overlay = gst_harness_new_parse ("vkmloverlay");
  GstVideoInfo vinfo;
  GstMapInfo ma, mb;
  gsize box_row = (gsize) 20 * FW * 3, first_diff;

  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGB, FW, FH);
  gst_harness_set_src_caps (bare, gst_video_info_to_caps (&vinfo));
  gst_harness_set_src_caps (overlay, gst_video_info_to_caps (&vinfo));
  gst_buffer_memset (in, 0, 0, FW * FH * 3);
  a = gst_harness_push_and_pull (bare, gst_buffer_copy_deep (in));
  b = gst_harness_push_and_pull (overlay,
      gst_harness_push_and_pull (with, gst_buffer_copy_deep (in)));
  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  for (first_diff = 0; first_diff < ma.size
      && ma.data[first_diff] == mb.data[first_diff]; first_diff++);
#ifdef HAVE_PANGOCAIRO
  fail_unless (first_diff < box_row, "no difference above the box");
#else
  fail_unless (first_diff == ma.size);
#endif
  /* from the box's second row down: the same outline, no tag */
  fail_unless (memcmp (ma.data + box_row + FW * 3, mb.data + box_row + FW * 3,
          ma.size - box_row - FW * 3) == 0);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  gst_harness_teardown (with);
  gst_harness_teardown (bare);
  gst_harness_teardown (overlay);
}

GST_END_TEST;

static Suite *
vkml_track_suite (void)
{
  Suite *s = suite_create ("vkml_track");
  TCase *tc = tcase_create ("general");

  if (!GST_ELEMENT_REGISTER (vkmltrack, NULL)
      || !GST_ELEMENT_REGISTER (vkmloverlay, NULL))
    g_error ("cannot register vkmltrack and vkmloverlay");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ids_kept);
  tcase_add_test (tc, test_skipped_frames_predicted);
  tcase_add_test (tc, test_detector_frame_without_objects);
  tcase_add_test (tc, test_max_missed);
  tcase_add_test (tc, test_min_hits_and_other_rois);
  tcase_add_test (tc, test_flush_ends_tracks);
  tcase_add_test (tc, test_overlay_draws_track_id);
  return s;
}

GST_CHECK_MAIN (vkml_track);
