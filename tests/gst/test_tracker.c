/* The tracking maths of vkmltrack (gstvkmltracker.c, gstvkmlassign.c) on synthetic
 * moving boxes with known identities: the assignment on matrices with known answers,
 * then scenes (straight lines, noise with misses and clutter, crossings, frames the
 * detector skips) scored as MOT benchmarks score trackers: misses, false positives, id
 * switches, fragmentations and MOTA, for both motion models and both matchings. The
 * figures are printed (docs/element.md quotes them) and bounded. */
#include <gst/check/gstcheck.h>

#include "gstvkmltracker.h"

#include <math.h>

/* An output box counts as finding a true object at IoU >= 0.5 (as in MOT benchmarks). */
#define EVAL_IOU 0.5f

GST_START_TEST (test_assign_known_answers)
{
  /* Greedy takes the cheapest pair (0,0) = 0.1 and is left with (1,1) = 0.9, 1.0 in
   * all; the optimum is (0,1) + (1,0) = 0.2 + 0.3. */
  const gdouble cost[] = { 0.1, 0.2, 0.3, 0.9 };
  /* 3 rows, 2 columns: greedy gives column 0 to row 0 and nothing else is under the
   * limit (0.95); the optimum pairs two rows: (0,1) + (1,0) = 0.3 + 0.12. */
  const gdouble wide[] = { 0.1, 0.3, 0.12, 0.96, 0.15, 0.97 };
  gint r2c[3];

  gst_vkml_assign (GST_VKML_MATCHING_HUNGARIAN, cost, 2, 2, 0.95, r2c);
  fail_unless (r2c[0] == 1 && r2c[1] == 0, "hungarian: %d %d", r2c[0], r2c[1]);
  gst_vkml_assign (GST_VKML_MATCHING_GREEDY, cost, 2, 2, 0.95, r2c);
  fail_unless (r2c[0] == 0 && r2c[1] == 1, "greedy: %d %d", r2c[0], r2c[1]);
  gst_vkml_assign (GST_VKML_MATCHING_HUNGARIAN, wide, 3, 2, 0.95, r2c);
  fail_unless (r2c[0] == 1 && r2c[1] == 0 && r2c[2] == -1,
      "hungarian 3x2: %d %d %d", r2c[0], r2c[1], r2c[2]);
  gst_vkml_assign (GST_VKML_MATCHING_GREEDY, wide, 3, 2, 0.95, r2c);
  fail_unless (r2c[0] == 0 && r2c[1] == -1 && r2c[2] == -1,
      "greedy 3x2: %d %d %d", r2c[0], r2c[1], r2c[2]);
  /* over the limit: nothing; no rows or columns: nothing */
  gst_vkml_assign (GST_VKML_MATCHING_HUNGARIAN, cost, 2, 2, 0.05, r2c);
  fail_unless (r2c[0] == -1 && r2c[1] == -1);
  gst_vkml_assign (GST_VKML_MATCHING_HUNGARIAN, cost, 2, 0, 0.95, r2c);
  fail_unless (r2c[0] == -1 && r2c[1] == -1);
}

GST_END_TEST;

/* 300 x 300 (over Hungarian's bound, so greedy): a valid assignment, each row on its
 * cheapest column where those differ. */
GST_START_TEST (test_assign_large)
{
  const guint n = 300;
  gdouble *cost = g_new (gdouble, n * n);
  gboolean *taken = g_new0 (gboolean, n);
  gint *r2c = g_new (gint, n);
  guint r, c;

  for (r = 0; r < n; r++)
    for (c = 0; c < n; c++)
      cost[r * n + c] = c == (r * 7) % n ? 0.1 : 0.9;
  gst_vkml_assign (GST_VKML_MATCHING_HUNGARIAN, cost, n, n, 0.5, r2c);
  for (r = 0; r < n; r++) {
    fail_unless (r2c[r] >= 0 && !taken[r2c[r]]);
    taken[r2c[r]] = TRUE;
    fail_unless_equals_int (r2c[r], (r * 7) % n);
  }
  g_free (cost);
  g_free (taken);
  g_free (r2c);
}

GST_END_TEST;

GST_START_TEST (test_box_iou)
{
  GstVkmlBox a = { 0, 0, 10, 10 }, b = { 5, 0, 10, 10 }, c = { 20, 20, 5, 5 };
  GstVkmlBox empty = { 0, 0, 0, 0 };

  fail_unless (fabsf (gst_vkml_box_iou (&a, &b) - 50.0f / 150.0f) < 1e-6f);
  fail_unless (gst_vkml_box_iou (&a, &a) == 1.0f);
  fail_unless (gst_vkml_box_iou (&a, &c) == 0.0f);
  fail_unless (gst_vkml_box_iou (&empty, &empty) == 0.0f);
}

GST_END_TEST;

/* One true object: it moves in a straight line at a constant speed. */
typedef struct
{
  gfloat x, y, vx, vy, w, h;
} Mover;

typedef struct
{
  const gchar *name;
  const Mover *movers;
  guint n_movers;
  guint frames;
  guint interval;               /* the detector runs on every interval-th frame */
  gfloat noise_std;             /* pixels, on each edge of a detection */
  gdouble miss_rate;            /* chance a detection is missing */
  guint clutter;                /* false detections a frame */
  guint min_hits;               /* the tracker's */
} Scene;

typedef struct
{
  guint gt, misses, false_positives, switches, fragmentations;
  gdouble mota;
} Score;

/* Deterministic noise: xorshift64, uniform in [0, 1), normal by Box-Muller. */
static gdouble
uniform (guint64 * s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (gdouble) (*s >> 11) / (gdouble) (G_GUINT64_CONSTANT (1) << 53);
}

static gfloat
normal (guint64 * s)
{
  gdouble u = MAX (uniform (s), 1e-12), v = uniform (s);

  return (gfloat) (sqrt (-2.0 * log (u)) * cos (2.0 * G_PI * v));
}

static GstVkmlBox
truth (const Mover * m, guint frame)
{
  GstVkmlBox b = { m->x + m->vx * frame, m->y + m->vy * frame, m->w, m->h };

  return b;
}

/* The detector's answer on @frame: each object unless missed, jittered; clutter. */
static GArray *
detect (const Scene * sc, guint frame, guint64 * seed)
{
  GArray *dets = g_array_new (FALSE, FALSE, sizeof (GstVkmlTrackDetection));
  guint i;

  for (i = 0; i < sc->n_movers; i++) {
    GstVkmlTrackDetection d = { truth (&sc->movers[i], frame), 0, 0, 1, 0 };

    if (uniform (seed) < sc->miss_rate)
      continue;
    d.box.x += sc->noise_std * normal (seed);
    d.box.y += sc->noise_std * normal (seed);
    d.box.w += sc->noise_std * normal (seed);
    d.box.h += sc->noise_std * normal (seed);
    g_array_append_val (dets, d);
  }
  for (i = 0; i < sc->clutter; i++) {
    GstVkmlTrackDetection d = { {(gfloat) (uniform (seed) * 600),
        (gfloat) (uniform (seed) * 440), 30, 30}, 0, 0, 0.5f, 0
    };
    g_array_append_val (dets, d);
  }
  return dets;
}

typedef struct
{
  GstVkmlBox box;
  guint64 id;
} Output;

/* What the tracker gives out on @frame: detections with their ids, or predictions. */
static GArray *
track_frame (GstVkmlTracker * tracker, const Scene * sc, guint frame,
    guint64 * seed)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Output));
  guint i;

  if (frame % sc->interval == 0) {
    GArray *dets = detect (sc, frame, seed);
    guint64 *ids = g_new0 (guint64, MAX (dets->len, 1));

    gst_vkml_tracker_update (tracker,
        (const GstVkmlTrackDetection *) dets->data, dets->len, ids);
    for (i = 0; i < dets->len; i++) {
      Output o = { g_array_index (dets, GstVkmlTrackDetection, i).box, ids[i] };

      if (o.id)
        g_array_append_val (out, o);
    }
    g_free (ids);
    g_array_unref (dets);
  } else {
    const GstVkmlTrackState *t;
    guint n;

    gst_vkml_tracker_skip (tracker);
    t = gst_vkml_tracker_tracks (tracker, &n);
    for (i = 0; i < n; i++) {
      Output o = { t[i].box, t[i].id };

      if (gst_vkml_tracker_shows_predicted (tracker, &t[i]))
        g_array_append_val (out, o);
    }
  }
  return out;
}

/* Matches the frame's outputs to the true objects (IoU >= EVAL_IOU, optimal) and counts:
 * a true object unmatched is a miss, an output unmatched a false positive, a true
 * object matched to another id than last time a switch, matched again after frames
 * unmatched a fragmentation. */
static void
score_frame (const Scene * sc, guint frame, GArray * out, guint64 * last_id,
    gboolean * was_tracked, Score * score)
{
  gdouble *cost = g_new (gdouble, MAX (sc->n_movers * out->len, 1));
  gint *r2c = g_new (gint, sc->n_movers);
  guint i, j, matched = 0;

  for (i = 0; i < sc->n_movers; i++) {
    GstVkmlBox t = truth (&sc->movers[i], frame);

    for (j = 0; j < out->len; j++)
      cost[i * out->len + j] = 1.0 - gst_vkml_box_iou (&t,
          &g_array_index (out, Output, j).box);
  }
  gst_vkml_assign (GST_VKML_MATCHING_HUNGARIAN, cost, sc->n_movers, out->len,
      1.0 - EVAL_IOU, r2c);
  for (i = 0; i < sc->n_movers; i++) {
    guint64 id;

    score->gt++;
    if (r2c[i] < 0) {
      score->misses++;
      was_tracked[i] = FALSE;
      continue;
    }
    matched++;
    id = g_array_index (out, Output, r2c[i]).id;
    if (last_id[i] && last_id[i] != id)
      score->switches++;
    if (last_id[i] && !was_tracked[i])
      score->fragmentations++;
    last_id[i] = id;
    was_tracked[i] = TRUE;
  }
  score->false_positives += out->len - matched;
  g_free (cost);
  g_free (r2c);
}

static Score
run_scene (const Scene * sc, GstVkmlMotion motion, GstVkmlMatching matching)
{
  GstVkmlTrackerParams p = { motion, matching, 0.3f, 8, sc->min_hits, TRUE };
  GstVkmlTracker *tracker = gst_vkml_tracker_new (&p);
  guint64 *last_id = g_new0 (guint64, sc->n_movers);
  gboolean *was_tracked = g_new0 (gboolean, sc->n_movers);
  guint64 seed = 0x9e3779b97f4a7c15ull;
  Score score = { 0 };
  guint f;

  for (f = 0; f < sc->frames; f++) {
    GArray *out = track_frame (tracker, sc, f, &seed);

    score_frame (sc, f, out, last_id, was_tracked, &score);
    g_array_unref (out);
  }
  score.mota = 1.0 - (gdouble) (score.misses + score.false_positives +
      score.switches) / score.gt;
  g_print ("| %s | %s | %s | %u | %u | %u | %u | %u | %.3f |\n", sc->name,
      motion == GST_VKML_MOTION_SORT ? "sort" : "iou",
      matching == GST_VKML_MATCHING_GREEDY ? "greedy" : "hungarian", score.gt,
      score.misses, score.false_positives, score.switches,
      score.fragmentations, score.mota);
  gst_vkml_tracker_free (tracker);
  g_free (last_id);
  g_free (was_tracked);
  return score;
}

/* Six objects in rows and columns that never meet, 3 px a frame at most. */
static const Mover apart[] = {
  {20, 20, 3, 0, 40, 60}, {20, 120, 2, 1, 50, 40}, {20, 220, 1, 2, 30, 30},
  {500, 20, -3, 1, 40, 40}, {500, 300, -2, -1, 60, 50}, {300, 400, 0, -2, 36,
      48},
};

/* Three pairs on collision courses: each pair meets head on, overlapping fully. */
static const Mover crossing[] = {
  {40, 100, 4, 0, 40, 40}, {440, 104, -4, 0, 40, 40},
  {40, 250, 3, 0, 50, 50}, {340, 250, -3, 0, 50, 50},
  {300, 20, 0, 5, 44, 44}, {304, 420, 0, -5, 44, 44},
};

/* Fast objects: 5 px a frame on 40 px boxes. */
static const Mover fast[] = {
  {20, 20, 5, 0, 40, 40}, {20, 140, 5, 1, 40, 40}, {560, 260, -5, 0, 40, 40},
  {300, 20, 0, 5, 40, 40},
};

GST_START_TEST (test_straight_lines_exact)
{
  const Scene sc = { "apart", apart, G_N_ELEMENTS (apart), 100, 1, 0, 0, 0, 1 };
  GstVkmlMotion m;
  GstVkmlMatching k;

  for (m = GST_VKML_MOTION_IOU; m <= GST_VKML_MOTION_SORT; m++)
    for (k = GST_VKML_MATCHING_HUNGARIAN; k <= GST_VKML_MATCHING_GREEDY; k++) {
      Score s = run_scene (&sc, m, k);

      fail_unless_equals_int (s.gt, 600);
      fail_unless_equals_int (s.misses + s.false_positives + s.switches, 0);
      fail_unless_equals_int (s.fragmentations, 0);
    }
}

GST_END_TEST;

GST_START_TEST (test_noise_misses_clutter)
{
  const Scene sc = { "noisy", apart, G_N_ELEMENTS (apart), 300, 1, 2.0f, 0.1,
    1, 2
  };
  Score iou = run_scene (&sc, GST_VKML_MOTION_IOU, GST_VKML_MATCHING_HUNGARIAN);
  Score sort = run_scene (&sc, GST_VKML_MOTION_SORT,
      GST_VKML_MATCHING_HUNGARIAN);
  Score greedy = run_scene (&sc, GST_VKML_MOTION_SORT,
      GST_VKML_MATCHING_GREEDY);

  /* misses are the detector's (10%) and clutter its false positives: what a tracker
   * must not add is switches */
  fail_unless (sort.switches == 0, "sort: %u switches", sort.switches);
  fail_unless (greedy.switches == 0, "greedy: %u switches", greedy.switches);
  fail_unless (iou.switches <= 2, "iou: %u switches", iou.switches);
  fail_unless (sort.mota > 0.85 && iou.mota > 0.85, "mota %.3f %.3f", sort.mota,
      iou.mota);
}

GST_END_TEST;

GST_START_TEST (test_crossing_paths)
{
  const Scene sc = { "crossing", crossing, G_N_ELEMENTS (crossing), 120, 1,
    1.0f, 0, 0, 1
  };
  Score iou = run_scene (&sc, GST_VKML_MOTION_IOU, GST_VKML_MATCHING_HUNGARIAN);
  Score sort = run_scene (&sc, GST_VKML_MOTION_SORT,
      GST_VKML_MATCHING_HUNGARIAN);
  Score greedy = run_scene (&sc, GST_VKML_MOTION_SORT,
      GST_VKML_MATCHING_GREEDY);

  /* the velocities carry SORT's tracks through the meetings; boxes alone do not */
  fail_unless (sort.switches == 0, "sort: %u switches", sort.switches);
  fail_unless (greedy.switches == 0, "greedy: %u switches", greedy.switches);
  fail_unless (iou.switches > 0, "iou: no switch at all");
}

GST_END_TEST;

GST_START_TEST (test_skipped_frames)
{
  const Scene sc = { "interval-4", fast, G_N_ELEMENTS (fast), 120, 4, 1.0f, 0,
    0, 1
  };
  Score iou = run_scene (&sc, GST_VKML_MOTION_IOU, GST_VKML_MATCHING_HUNGARIAN);
  Score sort = run_scene (&sc, GST_VKML_MOTION_SORT,
      GST_VKML_MATCHING_HUNGARIAN);

  /* between runs SORT's predictions follow the objects (but for the first run's
   * frames, before a track has a velocity: one fragment per object at most); the IoU
   * tracker's boxes stay behind, and lose them by the third skipped frame */
  fail_unless (sort.switches == 0
      && sort.fragmentations <= G_N_ELEMENTS (fast),
      "sort: %u switches %u fragmentations", sort.switches,
      sort.fragmentations);
  fail_unless (sort.mota > 0.95, "sort mota %.3f", sort.mota);
  fail_unless (sort.mota > iou.mota + 0.1, "sort %.3f, iou %.3f", sort.mota,
      iou.mota);
}

GST_END_TEST;

GST_START_TEST (test_track_lifetime)
{
  GstVkmlTrackerParams p = { GST_VKML_MOTION_SORT, GST_VKML_MATCHING_HUNGARIAN,
    0.3f, 2, 2, TRUE
  };
  GstVkmlTracker *tracker = gst_vkml_tracker_new (&p);
  GstVkmlTrackDetection d = { {100, 100, 40, 40}, 3, 0, 1, 0 };
  GstVkmlTrackDetection other = { {100, 100, 40, 40}, 4, 0, 1, 0 };
  guint64 id = 99;
  guint n, i;

  /* min-hits 2: the first detection has no id out yet, the second has */
  gst_vkml_tracker_update (tracker, &d, 1, &id);
  fail_unless_equals_int (id, 0);
  gst_vkml_tracker_update (tracker, &d, 1, &id);
  fail_unless_equals_int (id, 1);
  /* another class at the same place is another track */
  gst_vkml_tracker_update (tracker, &other, 1, &id);
  fail_unless_equals_int (id, 0);
  /* missed for 2 frames (max-missed): kept, and found again with its id */
  gst_vkml_tracker_update (tracker, NULL, 0, NULL);
  gst_vkml_tracker_update (tracker, &d, 1, &id);
  fail_unless_equals_int (id, 1);
  /* missed for 3 frames: ended; the object comes back as a new track */
  for (i = 0; i < 3; i++)
    gst_vkml_tracker_update (tracker, NULL, 0, NULL);
  gst_vkml_tracker_tracks (tracker, &n);
  fail_unless_equals_int (n, 0);
  gst_vkml_tracker_update (tracker, &d, 1, &id);
  gst_vkml_tracker_update (tracker, &d, 1, &id);
  fail_unless (id > 2, "id %" G_GUINT64_FORMAT, id);
  gst_vkml_tracker_free (tracker);
  gst_vkml_tracker_free (NULL);
}

GST_END_TEST;

static Suite *
vkml_tracker_suite (void)
{
  Suite *s = suite_create ("vkml_tracker");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_assign_known_answers);
  tcase_add_test (tc, test_assign_large);
  tcase_add_test (tc, test_box_iou);
  tcase_add_test (tc, test_straight_lines_exact);
  tcase_add_test (tc, test_noise_misses_clutter);
  tcase_add_test (tc, test_crossing_paths);
  tcase_add_test (tc, test_skipped_frames);
  tcase_add_test (tc, test_track_lifetime);
  return s;
}

GST_CHECK_MAIN (vkml_tracker);
