/* Tracks over frames: see gstvkmltracker.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmltracker.h"

#include <glib-object.h>
#include <string.h>

/* SORT noise, in pixels, for a box of height h: measurement std 1 + h / 20 (a detector's
 * box edges jitter by a few percent of its size); acceleration std 0.5 + h / 50 per
 * frame; a new track's velocity std 1 + h / 2 per frame (unknown until its second hit). */
#define MEASUREMENT_STD(h) (1.0 + (h) / 20.0)
#define ACCELERATION_STD(h) (0.5 + (h) / 50.0)
#define INITIAL_VELOCITY_STD(h) (1.0 + (h) / 2.0)
/* Smallest width and height a prediction may shrink to, in pixels. */
#define MIN_PREDICTED_SIZE 1.0

struct _GstVkmlTracker
{
  GstVkmlTrackerParams params;
  GArray *tracks;               /* GstVkmlTrackState */
  guint64 next_id;
};

GType
gst_vkml_motion_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_VKML_MOTION_IOU, "IoU: a track is where it was last detected", "iou"},
    {GST_VKML_MOTION_SORT, "SORT: Kalman-predicted boxes (constant velocity)",
        "sort"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstVkmlMotion", values));
  return (GType) id;
}

gfloat
gst_vkml_box_iou (const GstVkmlBox * a, const GstVkmlBox * b)
{
  gfloat ix = MIN (a->x + a->w, b->x + b->w) - MAX (a->x, b->x);
  gfloat iy = MIN (a->y + a->h, b->y + b->h) - MAX (a->y, b->y);
  gfloat inter, uni;

  if (ix <= 0 || iy <= 0)
    return 0;
  inter = ix * iy;
  uni = a->w * a->h + b->w * b->h - inter;
  return uni > 0 ? inter / uni : 0;
}

/* One coordinate, constant velocity over one frame: x += v, P = F P F' + Q. */
static void
axis_predict (GstVkmlKalmanAxis * k, gdouble accel_std)
{
  gdouble q = accel_std * accel_std;

  k->pos += k->vel;
  k->p_pp += 2 * k->p_pv + k->p_vv + q / 4;
  k->p_pv += k->p_vv + q / 2;
  k->p_vv += q;
}

static void
axis_correct (GstVkmlKalmanAxis * k, gdouble z, gdouble meas_std)
{
  gdouble s = k->p_pp + meas_std * meas_std;
  gdouble gain_p = k->p_pp / s, gain_v = k->p_pv / s, innovation = z - k->pos;

  k->pos += gain_p * innovation;
  k->vel += gain_v * innovation;
  k->p_vv -= gain_v * k->p_pv;
  k->p_pp *= 1 - gain_p;
  k->p_pv *= 1 - gain_p;
}

static void
box_to_axes (const GstVkmlBox * b, gdouble z[4])
{
  z[0] = b->x + b->w / 2.0;
  z[1] = b->y + b->h / 2.0;
  z[2] = b->w;
  z[3] = b->h;
}

static void
track_box_from_axes (GstVkmlTrackState * t)
{
  gdouble w = MAX (t->axes[2].pos, MIN_PREDICTED_SIZE);
  gdouble h = MAX (t->axes[3].pos, MIN_PREDICTED_SIZE);

  t->box.x = (gfloat) (t->axes[0].pos - w / 2);
  t->box.y = (gfloat) (t->axes[1].pos - h / 2);
  t->box.w = (gfloat) w;
  t->box.h = (gfloat) h;
}

static void
track_start (GstVkmlTrackState * t, guint64 id, const GstVkmlTrackDetection * d)
{
  gdouble z[4], meas = MEASUREMENT_STD (d->box.h);
  gdouble vel = INITIAL_VELOCITY_STD (d->box.h);
  guint i;

  memset (t, 0, sizeof (*t));
  t->id = id;
  t->class_id = d->class_id;
  t->label = d->label;
  t->score = d->score;
  t->first_time = d->time;
  t->box = d->box;
  t->hits = 1;
  t->detected = t->seen_last_run = TRUE;
  box_to_axes (&d->box, z);
  for (i = 0; i < 4; i++) {
    t->axes[i].pos = z[i];
    t->axes[i].p_pp = meas * meas;
    t->axes[i].p_vv = vel * vel;
  }
}

/* One frame on: SORT moves the box to its prediction; the IoU tracker keeps it. */
static void
track_advance (GstVkmlTrackState * t, GstVkmlMotion motion)
{
  guint i;

  t->age++;
  t->missed++;
  t->detected = FALSE;
  if (motion != GST_VKML_MOTION_SORT)
    return;
  for (i = 0; i < 4; i++)
    axis_predict (&t->axes[i], ACCELERATION_STD (t->box.h));
  track_box_from_axes (t);
}

static void
track_hit (GstVkmlTrackState * t, const GstVkmlTrackDetection * d)
{
  gdouble z[4], meas = MEASUREMENT_STD (d->box.h);
  guint i;

  box_to_axes (&d->box, z);
  for (i = 0; i < 4; i++)
    axis_correct (&t->axes[i], z[i], meas);
  t->box = d->box;              /* the detection itself goes out, not a smoothed box */
  t->class_id = d->class_id;
  t->label = d->label;
  t->score = d->score;
  t->hits++;
  t->missed = 0;
  t->detected = TRUE;
}

GstVkmlTracker *
gst_vkml_tracker_new (const GstVkmlTrackerParams * params)
{
  GstVkmlTracker *t = g_new0 (GstVkmlTracker, 1);

  t->params = *params;
  t->tracks = g_array_new (FALSE, FALSE, sizeof (GstVkmlTrackState));
  t->next_id = 1;
  return t;
}

void
gst_vkml_tracker_free (GstVkmlTracker * tracker)
{
  if (!tracker)
    return;
  g_array_unref (tracker->tracks);
  g_free (tracker);
}

void
gst_vkml_tracker_clear (GstVkmlTracker * tracker)
{
  g_array_set_size (tracker->tracks, 0);
}

static void
advance_all (GstVkmlTracker * tracker)
{
  guint i;

  for (i = 0; i < tracker->tracks->len; i++)
    track_advance (&g_array_index (tracker->tracks, GstVkmlTrackState, i),
        tracker->params.motion);
}

void
gst_vkml_tracker_skip (GstVkmlTracker * tracker)
{
  advance_all (tracker);
}

/* 1 - IoU of every track's box with every detection (1: other class). */
static gdouble *
cost_matrix (GstVkmlTracker * tracker, const GstVkmlTrackDetection * dets,
    guint n)
{
  guint rows = tracker->tracks->len, r, c;
  gdouble *cost = g_new (gdouble, MAX ((gsize) rows * n, 1));

  for (r = 0; r < rows; r++) {
    const GstVkmlTrackState *t =
        &g_array_index (tracker->tracks, GstVkmlTrackState, r);

    for (c = 0; c < n; c++)
      cost[r * n + c] = tracker->params.per_class
          && t->class_id != dets[c].class_id ? 1.0 :
          1.0 - gst_vkml_box_iou (&t->box, &dets[c].box);
  }
  return cost;
}

static guint64
public_id (const GstVkmlTracker * tracker, const GstVkmlTrackState * t)
{
  return t->hits >= tracker->params.min_hits ? t->id : 0;
}

void
gst_vkml_tracker_update (GstVkmlTracker * tracker,
    const GstVkmlTrackDetection * dets, guint n, guint64 * track_ids)
{
  guint rows, r, c;
  gint *row_to_col;
  gboolean *det_taken;
  gdouble *cost;

  advance_all (tracker);
  rows = tracker->tracks->len;
  cost = cost_matrix (tracker, dets, n);
  row_to_col = g_new (gint, MAX (rows, 1));
  det_taken = g_new0 (gboolean, MAX (n, 1));
  gst_vkml_assign (tracker->params.matching, cost, rows, n,
      1.0 - tracker->params.iou_threshold, row_to_col);
  for (r = 0; r < rows; r++) {
    GstVkmlTrackState *t =
        &g_array_index (tracker->tracks, GstVkmlTrackState, r);

    t->seen_last_run = row_to_col[r] >= 0;
    if (row_to_col[r] < 0)
      continue;
    c = (guint) row_to_col[r];
    track_hit (t, &dets[c]);
    det_taken[c] = TRUE;
    track_ids[c] = public_id (tracker, t);
  }
  for (r = rows; r-- > 0;)      /* backwards: removal keeps earlier indices */
    if (g_array_index (tracker->tracks, GstVkmlTrackState, r).missed >
        tracker->params.max_missed)
      g_array_remove_index (tracker->tracks, r);
  for (c = 0; c < n; c++) {
    GstVkmlTrackState t;

    if (det_taken[c])
      continue;
    track_start (&t, tracker->next_id++, &dets[c]);
    g_array_append_val (tracker->tracks, t);
    track_ids[c] = public_id (tracker, &t);
  }
  g_free (cost);
  g_free (row_to_col);
  g_free (det_taken);
}

const GstVkmlTrackState *
gst_vkml_tracker_tracks (GstVkmlTracker * tracker, guint * n_tracks)
{
  *n_tracks = tracker->tracks->len;
  return (const GstVkmlTrackState *) tracker->tracks->data;
}

gboolean
gst_vkml_tracker_shows_predicted (const GstVkmlTracker * tracker,
    const GstVkmlTrackState * track)
{
  return track->seen_last_run && public_id (tracker, track) != 0;
}
