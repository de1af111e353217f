/* Track-to-detection assignment: see gstvkmlassign.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlassign.h"

#include <glib-object.h>
#include <string.h>

/* Rows or columns above which the Hungarian method (O(n^3): 16.8 million steps at 256)
 * gives way to the greedy one, so that a frame of thousands of boxes cannot stall the
 * stream. */
#define HUNGARIAN_MAX_SIDE 256

GType
gst_vkml_matching_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_VKML_MATCHING_HUNGARIAN, "Optimal assignment (Hungarian method)",
        "hungarian"},
    {GST_VKML_MATCHING_GREEDY, "Greedy: the best overlap first",
        "greedy"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("GstVkmlMatching", values));
  return (GType) id;
}

/* Kuhn-Munkres with row and column potentials on the n x n matrix @a (1-based
 * indices inside, 0 the virtual start column); col_row[j] = the row given column j. */
static void
hungarian_square (const gdouble * a, guint n, guint * col_row)
{
  gdouble *u = g_new0 (gdouble, n + 1), *v = g_new0 (gdouble, n + 1);
  gdouble *minv = g_new (gdouble, n + 1);
  guint *way = g_new0 (guint, n + 1);
  gboolean *used = g_new (gboolean, n + 1);
  guint i, j;

  memset (col_row, 0, (n + 1) * sizeof (guint));
  for (i = 1; i <= n; i++) {
    guint j0 = 0;

    col_row[0] = i;
    for (j = 0; j <= n; j++) {
      minv[j] = G_MAXDOUBLE;
      used[j] = FALSE;
    }
    do {
      guint i0 = col_row[j0], j1 = 0;
      gdouble delta = G_MAXDOUBLE;

      used[j0] = TRUE;
      for (j = 1; j <= n; j++) {
        gdouble cur;

        if (used[j])
          continue;
        cur = a[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (j = 0; j <= n; j++) {
        if (used[j]) {
          u[col_row[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (col_row[j0] != 0);
    do {                        /* the augmenting path, back to the start */
      guint j1 = way[j0];

      col_row[j0] = col_row[j1];
      j0 = j1;
    } while (j0);
  }
  g_free (u);
  g_free (v);
  g_free (minv);
  g_free (way);
  g_free (used);
}

static void
assign_hungarian (const gdouble * cost, guint rows, guint cols,
    gdouble max_cost, gint * row_to_col)
{
  guint n = MAX (rows, cols), r, c;
  gdouble *square = g_new0 (gdouble, (gsize) n * n);    /* padding costs 0 */
  guint *col_row = g_new (guint, n + 1);

  /* Pairs over max_cost cost it and are dropped afterwards, as SORT does. */
  for (r = 0; r < rows; r++)
    for (c = 0; c < cols; c++)
      square[r * n + c] = MIN (cost[r * cols + c], max_cost + 1.0);
  hungarian_square (square, n, col_row);
  for (c = 1; c <= n; c++) {
    guint row = col_row[c] - 1;

    if (row < rows && c - 1 < cols && cost[row * cols + c - 1] <= max_cost)
      row_to_col[row] = (gint) (c - 1);
  }
  g_free (square);
  g_free (col_row);
}

typedef struct
{
  gdouble cost;
  guint row, col;
} GstVkmlPair;

static gint
compare_pairs (gconstpointer a, gconstpointer b)
{
  const GstVkmlPair *pa = a, *pb = b;

  if (pa->cost != pb->cost)
    return pa->cost < pb->cost ? -1 : 1;
  /* ties in a fixed order, so that runs repeat */
  if (pa->row != pb->row)
    return pa->row < pb->row ? -1 : 1;
  return pa->col < pb->col ? -1 : (pa->col > pb->col);
}

static void
assign_greedy (const gdouble * cost, guint rows, guint cols,
    gdouble max_cost, gint * row_to_col)
{
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (GstVkmlPair));
  gboolean *col_taken = g_new0 (gboolean, MAX (cols, 1));
  guint r, c, i;

  for (r = 0; r < rows; r++)
    for (c = 0; c < cols; c++)
      if (cost[r * cols + c] <= max_cost) {
        GstVkmlPair p = { cost[r * cols + c], r, c };

        g_array_append_val (pairs, p);
      }
  g_array_sort (pairs, compare_pairs);
  for (i = 0; i < pairs->len; i++) {
    const GstVkmlPair *p = &g_array_index (pairs, GstVkmlPair, i);

    if (row_to_col[p->row] < 0 && !col_taken[p->col]) {
      row_to_col[p->row] = (gint) p->col;
      col_taken[p->col] = TRUE;
    }
  }
  g_free (col_taken);
  g_array_unref (pairs);
}

void
gst_vkml_assign (GstVkmlMatching matching, const gdouble * cost, guint rows,
    guint cols, gdouble max_cost, gint * row_to_col)
{
  guint r;

  for (r = 0; r < rows; r++)
    row_to_col[r] = -1;
  if (rows == 0 || cols == 0)
    return;
  if (matching == GST_VKML_MATCHING_GREEDY || rows > HUNGARIAN_MAX_SIDE
      || cols > HUNGARIAN_MAX_SIDE)
    assign_greedy (cost, rows, cols, max_cost, row_to_col);
  else
    assign_hungarian (cost, rows, cols, max_cost, row_to_col);
}
