/* vkmloverlay's cost per frame: 48 boxes (40x40, the detect.sh grid) on a 320x240 RGB
 * frame, through GstHarness, against an identity element (the harness's own cost);
 * without and with labels. Prints the best of 5 runs of 200 frames, in us per frame. */
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvkmloverlay.h"

#define FRAMES 200
#define RUNS 5
#define BOXES 48

static GstBuffer *frame_with_boxes(void)
{
    GstBuffer *b = gst_buffer_new_allocate(NULL, 320 * 240 * 3, NULL);
    guint c;

    for (c = 0; c < BOXES; c++) {
        GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta(
            b, "red", (c % 8) * 40, (c / 8) * 40, 40, 40);

        gst_video_region_of_interest_meta_add_param(
            roi, gst_structure_new("detection", "class-id", G_TYPE_INT, 0, NULL));
    }
    return b;
}

int main(int argc, char **argv)
{
    static const gchar *launches[] = {"identity", "vkmloverlay draw-labels=false", "vkmloverlay"};
    guint l, run, i;

    gst_init(&argc, &argv);
    if (!GST_ELEMENT_REGISTER(vkmloverlay, NULL))
        return 1;
    for (l = 0; l < G_N_ELEMENTS(launches); l++) {
        GstHarness *h = gst_harness_new_parse(launches[l]);
        gint64 best = G_MAXINT64;

        gst_harness_set_src_caps_str(h,
                                     "video/x-raw,format=RGB,width=320,height=240,framerate=30/1");
        for (run = 0; run < RUNS; run++) {
            gint64 t0 = g_get_monotonic_time();

            for (i = 0; i < FRAMES; i++)
                gst_buffer_unref(gst_harness_push_and_pull(h, frame_with_boxes()));
            best = MIN(best, (g_get_monotonic_time() - t0) / FRAMES);
        }
        g_print("%-30s %6" G_GINT64_FORMAT " us/frame (%d boxes, 320x240 RGB)\n", launches[l], best,
                BOXES);
        gst_harness_teardown(h);
    }
    return 0;
}
