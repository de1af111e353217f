/* Assignment of tracks to detections for vkmltrack (gstvkmltracker.c): the optimal
 * one (Hungarian / Kuhn-Munkres, O(n^3)) or the greedy one (best score first). Plain
 * maths, no GStreamer; thread-safe (no shared state). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS typedef enum
{
  GST_VKML_MATCHING_HUNGARIAN = 0,      /* the assignment of least total cost */
  GST_VKML_MATCHING_GREEDY,     /* the cheapest pair first, then the next free one */
} GstVkmlMatching;

#define GST_TYPE_VKML_MATCHING (gst_vkml_matching_get_type ())
GType gst_vkml_matching_get_type (void);

/* Pairs rows with columns of the @rows x @cols cost matrix @cost (row-major), each
 * row and column at most once, leaving out pairs that cost more than @max_cost. Above
 * 256 rows or columns, Hungarian gives way to greedy (a bound on the time a frame
 * takes).
 * row_to_col[r] is the column of row r, or -1. */
void gst_vkml_assign (GstVkmlMatching matching, const gdouble * cost,
    guint rows, guint cols, gdouble max_cost, gint * row_to_col);

G_END_DECLS
