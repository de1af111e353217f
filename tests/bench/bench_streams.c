/* N video streams through vkmlinfer in one pipeline, sharing one model instance (one
 * loaded model and session; the library's batcher gathers the streams' frames), or each
 * element with its own model (--no-instance, the behaviour before model-instance-id):
 *
 *   SRC ! vkmlinfer model=M model-instance-id=bench batch-size=B precision=P
 *         resize=letterbox max-in-flight=F ... ! fakesink sync=false      (x N)
 *
 * SRC is `videotestsrc pattern=solid-color is-live=false ! video/x-raw,format=NV12,...`
 * or, with --file, `filesrc ! decodebin` (the real decode case; the run ends with the
 * file). After a warm-up (from when every stream has had a frame out) it measures for
 * --seconds and prints one line: frames/s over all streams, p50/p99 latency from a
 * frame's arrival at vkmlinfer's sink pad to its leaving the src pad with the tensor
 * meta, host RSS, GPU memory used (nvidia-smi, the rise since before the pipeline
 * started, summed over the GPUs), and the instance's mean frames per run (over the whole
 * run, the warm-up included). An ERROR on the bus: exit 1.
 * tests/bench/bench_streams.sh runs it over N and models and adds the ceiling.
 *
 * The elements are the ones linked in (registered statically), not a plugin found on
 * GST_PLUGIN_PATH, so the binary measures the tree it was built from.
 *
 * Threads: the sink-pad probe runs in each source's streaming thread, the src-pad probe
 * in vkmlinfer's src task, the fakesink probe in that task too; the main loop reads the
 * counters. Each stream's ring and latency samples are under its own mutex. */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstvkmlinfer.h"
#include "gstvkmltensormeta.h"

/* Frames of one stream between vkmlinfer's sink and src pads that the latency ring
 * remembers (max-in-flight x batch-size is at most 16 x 64). */
#define RING_SIZE 1024
/* Milliseconds between the main loop's looks at the counters. */
#define TICK_MS 10
/* Seconds the streams' first frames may take to come out (planning a large model on a slow
 * device) before the run is given up. */
#define FIRST_FRAME_LIMIT_S 600

typedef struct {
    gchar *model;
    gint streams;
    gint batch;
    gint64 timeout_us;
    gchar *precision;
    gint in_flight;
    gchar *device;
    gboolean data_parallel;
    gdouble seconds;
    gdouble warmup_s;
    gint warmup_frames;
    gint width, height;
    gchar *file;
    gint num_buffers;
    gboolean no_instance;
    gchar *extra;
    gint live_fps; /* > 0: live sources at this rate (camera-like) */
} Options;

typedef struct {
    GMutex lock;
    /* frames between the pads: PTS and arrival time (us), oldest at head */
    GstClockTime pts[RING_SIZE];
    gint64 t_in[RING_SIZE];
    guint head, count;
    GArray *latency_ms; /* gdouble, samples of the window */
    struct Bench *bench;
    /* 1 once a frame of this stream reached its fakesink; relaxed: only counted */
    atomic_int out;
} Stream;

typedef enum { PHASE_WAIT_FIRST, PHASE_WARMUP, PHASE_MEASURE, PHASE_DONE } Phase;

typedef struct Bench {
    Options opt;
    GstElement *pipeline;
    GstElement *first_infer;
    GMainLoop *loop;
    Stream *streams;
    /* frames out of vkmlinfer at every fakesink; relaxed: a plain counter, read by the
     * main loop as a count at one moment, nothing else is ordered by it */
    atomic_uint_fast64_t frames;
    /* streams that have had a frame out (the warm-up starts when all have); relaxed */
    atomic_int streams_out;
    /* 1 while in the window: the src probes keep latency samples; relaxed: a sample just
     * before or after the switch is as good as any, and the samples are read only after
     * the pipeline is stopped (its threads joined) */
    atomic_int measuring;
    Phase phase;
    gint64 t_start, t_first, t0, t1;
    guint64 c0, c1;
    gdouble gpu_before_mib, gpu_after_mib;
    gdouble rss_mib, frames_per_run;
    gboolean have_gpu;
    gint exit_code;
} Bench;

/* --- measurements ------------------------------------------------------------------ */

/* Memory used over all NVIDIA GPUs in MiB; FALSE without nvidia-smi. */
static gboolean gpu_memory_used(gdouble *mib)
{
    gchar *out = NULL, *path = g_find_program_in_path("nvidia-smi");
    gchar **lines, **l;
    gint status = 0;
    gboolean ok;

    if (!path)
        return FALSE;
    g_free(path);
    ok = g_spawn_command_line_sync(
             "nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits", &out, NULL,
             &status, NULL) &&
         g_spawn_check_wait_status(status, NULL);
    *mib = 0;
    lines = g_strsplit(ok ? out : "", "\n", -1);
    for (l = lines; *l; l++)
        if (g_strstrip(*l)[0])
            *mib += g_ascii_strtod(*l, NULL);
    g_strfreev(lines);
    g_free(out);
    return ok;
}

/* VmRSS of this process in MiB (0 when /proc is not there). */
static gdouble host_rss_mib(void)
{
    gchar *text = NULL, *at;
    gdouble kib = 0;

    if (g_file_get_contents("/proc/self/status", &text, NULL, NULL) &&
        (at = strstr(text, "VmRSS:")))
        kib = g_ascii_strtod(at + strlen("VmRSS:"), NULL);
    g_free(text);
    return kib / 1024.0;
}

static gint cmp_double(gconstpointer a, gconstpointer b)
{
    gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;

    return x < y ? -1 : x > y;
}

/* The q-quantile (nearest rank) of sorted v[0..n); NAN when n is 0. */
static gdouble quantile(const gdouble *v, guint n, gdouble q)
{
    return n ? v[(guint)(q * (n - 1) + 0.5)] : NAN;
}

/* --- pad probes --------------------------------------------------------------------- */

static void note_in(Stream *s, GstBuffer *buf, gint64 now)
{
    guint tail;

    g_mutex_lock(&s->lock);
    if (s->count == RING_SIZE) { /* frames that never came out: forget the oldest */
        s->head = (s->head + 1) % RING_SIZE;
        s->count--;
    }
    tail = (s->head + s->count) % RING_SIZE;
    s->pts[tail] = GST_BUFFER_PTS(buf);
    s->t_in[tail] = now;
    s->count++;
    g_mutex_unlock(&s->lock);
}

/* Frames leave in arrival order: the entry with this PTS is at or near the head; those
 * before it (frames that left without the meta were matched already) are dropped. */
static void note_out(Bench *b, Stream *s, GstBuffer *buf, gint64 now)
{
    gboolean sample = atomic_load_explicit(&b->measuring, memory_order_relaxed) &&
                      gst_buffer_get_vkml_tensor_meta(buf) != NULL;
    guint k;

    g_mutex_lock(&s->lock);
    for (k = 0; k < s->count; k++)
        if (s->pts[(s->head + k) % RING_SIZE] == GST_BUFFER_PTS(buf))
            break;
    if (k < s->count) {
        if (sample) {
            gdouble ms = (now - s->t_in[(s->head + k) % RING_SIZE]) / 1000.0;

            g_array_append_val(s->latency_ms, ms);
        }
        s->head = (s->head + k + 1) % RING_SIZE;
        s->count -= k + 1;
    }
    g_mutex_unlock(&s->lock);
}

typedef struct {
    Bench *b;
    Stream *s;
    gboolean in;
} ProbeData;

static gboolean note_list_item(GstBuffer **buf, G_GNUC_UNUSED guint idx, gpointer user)
{
    ProbeData *d = user;
    gint64 now = g_get_monotonic_time();

    if (d->in)
        note_in(d->s, *buf, now);
    else
        note_out(d->b, d->s, *buf, now);
    return TRUE;
}

static GstPadProbeReturn infer_probe(G_GNUC_UNUSED GstPad *pad, GstPadProbeInfo *info,
                                     gpointer user)
{
    ProbeData *d = user;

    if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
        gst_buffer_list_foreach(GST_PAD_PROBE_INFO_BUFFER_LIST(info), note_list_item, d);
    else {
        GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);

        note_list_item(&buf, 0, d);
    }
    return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn count_probe(G_GNUC_UNUSED GstPad *pad, GstPadProbeInfo *info,
                                     gpointer user)
{
    Stream *s = user;
    Bench *b = s->bench;
    guint64 n = 1;

    if (!atomic_exchange_explicit(&s->out, 1, memory_order_relaxed))
        atomic_fetch_add_explicit(&b->streams_out, 1, memory_order_relaxed);
    if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
        n = gst_buffer_list_length(GST_PAD_PROBE_INFO_BUFFER_LIST(info));
    atomic_fetch_add_explicit(&b->frames, n, memory_order_relaxed);
    return GST_PAD_PROBE_OK;
}

static void add_probe(GstElement *e, const gchar *pad_name, GstPadProbeCallback cb, gpointer data,
                      GDestroyNotify destroy)
{
    GstPad *pad = gst_element_get_static_pad(e, pad_name);

    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, cb, data,
                      destroy);
    gst_object_unref(pad);
}

/* --- the pipeline ------------------------------------------------------------------- */

static gchar *launch_line(const Options *o)
{
    GString *s = g_string_new(NULL);
    gint i;

    for (i = 0; i < o->streams; i++) {
        if (o->file)
            g_string_append_printf(s, "filesrc name=src%d ! decodebin ! ", i);
        else
            g_string_append_printf(s,
                                   "videotestsrc name=src%d pattern=solid-color "
                                   "is-live=%s num-buffers=%d ! video/x-raw,format=NV12,width=%d,"
                                   "height=%d,framerate=%d/1 ! ",
                                   i, o->live_fps > 0 ? "true" : "false", o->num_buffers, o->width,
                                   o->height, MAX(o->live_fps, 30));
        g_string_append_printf(s,
                               "vkmlinfer name=infer%d batch-size=%d "
                               "precision=%s resize=letterbox max-in-flight=%d",
                               i, o->batch, o->precision, o->in_flight);
        if (!o->no_instance)
            g_string_append_printf(s, " model-instance-id=bench batch-timeout=%" G_GINT64_FORMAT,
                                   o->timeout_us);
        if (o->device)
            g_string_append_printf(s, " device=%s", o->device);
        if (o->data_parallel)
            g_string_append(s, " data-parallel=true");
        if (o->extra)
            g_string_append_printf(s, " %s", o->extra);
        g_string_append_printf(s, " ! fakesink name=sink%d sync=false\n", i);
    }
    return g_string_free(s, FALSE);
}

static gboolean build_pipeline(Bench *b)
{
    GError *err = NULL;
    gchar *line = launch_line(&b->opt);
    gint i;

    b->pipeline = gst_parse_launch_full(line, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
    if (!b->pipeline) {
        g_printerr("bench_streams: the pipeline does not parse: %s\n%s", err ? err->message : "?",
                   line);
        g_clear_error(&err);
        g_free(line);
        return FALSE;
    }
    g_free(line);
    b->streams = g_new0(Stream, b->opt.streams);
    for (i = 0; i < b->opt.streams; i++) {
        Stream *s = &b->streams[i];
        gchar name[32];
        GstElement *e;
        ProbeData *in = g_new0(ProbeData, 1), *out = g_new0(ProbeData, 1);

        g_mutex_init(&s->lock);
        s->bench = b;
        s->latency_ms = g_array_new(FALSE, FALSE, sizeof(gdouble));
        g_snprintf(name, sizeof name, "infer%d", i);
        e = gst_bin_get_by_name(GST_BIN(b->pipeline), name);
        g_object_set(e, "model", b->opt.model, NULL);
        *in = (ProbeData){.b = b, .s = s, .in = TRUE};
        *out = (ProbeData){.b = b, .s = s, .in = FALSE};
        add_probe(e, "sink", infer_probe, in, g_free);
        add_probe(e, "src", infer_probe, out, g_free);
        if (i == 0)
            b->first_infer = e;
        else
            gst_object_unref(e);
        g_snprintf(name, sizeof name, "sink%d", i);
        e = gst_bin_get_by_name(GST_BIN(b->pipeline), name);
        add_probe(e, "sink", count_probe, s, NULL);
        gst_object_unref(e);
        if (b->opt.file) {
            g_snprintf(name, sizeof name, "src%d", i);
            e = gst_bin_get_by_name(GST_BIN(b->pipeline), name);
            g_object_set(e, "location", b->opt.file, NULL);
            gst_object_unref(e);
        }
    }
    return TRUE;
}

/* --- the run ------------------------------------------------------------------------ */

static void end_window(Bench *b)
{
    b->c1 = atomic_load_explicit(&b->frames, memory_order_relaxed);
    b->t1 = g_get_monotonic_time();
    atomic_store_explicit(&b->measuring, 0, memory_order_relaxed);
    b->phase = PHASE_DONE;
    b->rss_mib = host_rss_mib();
    if (b->have_gpu && !gpu_memory_used(&b->gpu_after_mib))
        b->have_gpu = FALSE;
    if (!b->opt.no_instance)
        g_object_get(b->first_infer, "instance-frames-per-run", &b->frames_per_run, NULL);
    g_main_loop_quit(b->loop);
}

static gboolean tick(gpointer user)
{
    Bench *b = user;
    gint64 now = g_get_monotonic_time();
    guint64 n = atomic_load_explicit(&b->frames, memory_order_relaxed);

    switch (b->phase) {
    case PHASE_WAIT_FIRST: /* until every stream has had a frame out */
        if (atomic_load_explicit(&b->streams_out, memory_order_relaxed) == b->opt.streams) {
            b->t_first = now;
            b->phase = PHASE_WARMUP;
        } else if (now - b->t_start > FIRST_FRAME_LIMIT_S * G_USEC_PER_SEC) {
            g_printerr("bench_streams: %d of %d streams had a frame out in %d s\n",
                       atomic_load_explicit(&b->streams_out, memory_order_relaxed), b->opt.streams,
                       FIRST_FRAME_LIMIT_S);
            b->exit_code = 1;
            g_main_loop_quit(b->loop);
        }
        break;
    case PHASE_WARMUP:
        if (b->opt.warmup_frames > 0 ? n >= (guint64)b->opt.warmup_frames
                                     : now - b->t_first >= b->opt.warmup_s * G_USEC_PER_SEC) {
            b->c0 = n;
            b->t0 = now;
            atomic_store_explicit(&b->measuring, 1, memory_order_relaxed);
            b->phase = PHASE_MEASURE;
        }
        break;
    case PHASE_MEASURE:
        if (now - b->t0 >= b->opt.seconds * G_USEC_PER_SEC)
            end_window(b);
        break;
    case PHASE_DONE: break;
    }
    return G_SOURCE_CONTINUE;
}

static gboolean on_bus(G_GNUC_UNUSED GstBus *bus, GstMessage *msg, gpointer user)
{
    Bench *b = user;
    GError *err = NULL;
    gchar *dbg = NULL;

    switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_ERROR:
        gst_message_parse_error(msg, &err, &dbg);
        g_printerr("bench_streams: error from %s: %s\n  (%s)\n", GST_OBJECT_NAME(msg->src),
                   err->message, dbg ? dbg : "no details");
        b->exit_code = 1;
        g_main_loop_quit(b->loop);
        break;
    case GST_MESSAGE_WARNING:
        gst_message_parse_warning(msg, &err, &dbg);
        g_printerr("bench_streams: warning from %s: %s\n", GST_OBJECT_NAME(msg->src), err->message);
        break;
    case GST_MESSAGE_EOS:
        if (b->phase == PHASE_MEASURE)
            end_window(b); /* the input ended: the window ends with it */
        else if (b->phase != PHASE_DONE) {
            g_printerr("bench_streams: the input ended before the warm-up did "
                       "(a longer file, more --num-buffers or a shorter --warmup)\n");
            b->exit_code = 1;
            g_main_loop_quit(b->loop);
        }
        break;
    default: break;
    }
    g_clear_error(&err);
    g_free(dbg);
    return G_SOURCE_CONTINUE;
}

static void report(Bench *b)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(gdouble));
    gdouble secs = (b->t1 - b->t0) / 1e6;
    gchar gpu[32] = "na", fpr[32] = "na";
    gint i;

    for (i = 0; i < b->opt.streams; i++)
        g_array_append_vals(all, b->streams[i].latency_ms->data, b->streams[i].latency_ms->len);
    g_array_sort(all, cmp_double);
    if (b->have_gpu)
        g_snprintf(gpu, sizeof gpu, "%.0f", b->gpu_after_mib - b->gpu_before_mib);
    if (!b->opt.no_instance)
        g_snprintf(fpr, sizeof fpr, "%.2f", b->frames_per_run);
    g_print("streams=%d fps=%.1f p50_ms=%.2f p99_ms=%.2f rss_mib=%.0f gpu_mib=%s "
            "frames_per_run=%s frames=%" G_GUINT64_FORMAT " seconds=%.2f batch=%d "
            "in_flight=%d precision=%s instance=%s source=%s\n",
            b->opt.streams, secs > 0 ? (b->c1 - b->c0) / secs : 0.0,
            quantile((gdouble *)all->data, all->len, 0.5),
            quantile((gdouble *)all->data, all->len, 0.99), b->rss_mib, gpu, fpr, b->c1 - b->c0,
            secs, b->opt.batch, b->opt.in_flight, b->opt.precision,
            b->opt.no_instance ? "no" : "yes", b->opt.file ? "file" : "videotestsrc");
    g_array_free(all, TRUE);
}

static gboolean parse_options(Options *o, int *argc, char ***argv)
{
    GOptionEntry entries[] = {
        {"model", 0, 0, G_OPTION_ARG_FILENAME, &o->model, "ONNX model (required)", "PATH"},
        {"streams", 0, 0, G_OPTION_ARG_INT, &o->streams, "streams (default 1)", "N"},
        {"batch", 0, 0, G_OPTION_ARG_INT, &o->batch, "vkmlinfer batch-size (default 1)", "B"},
        {"timeout", 0, 0, G_OPTION_ARG_INT64, &o->timeout_us, "batch-timeout in us (default 0)",
         "US"},
        {"precision", 0, 0, G_OPTION_ARG_STRING, &o->precision, "fp32 (default), fp32-fast or fp16",
         "P"},
        {"in-flight", 0, 0, G_OPTION_ARG_INT, &o->in_flight, "max-in-flight (default 2)", "F"},
        {"device", 0, 0, G_OPTION_ARG_STRING, &o->device,
         "vkmlinfer device (default: the element's)", "D"},
        {"data-parallel", 0, 0, G_OPTION_ARG_NONE, &o->data_parallel, "data-parallel=true", NULL},
        {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o->seconds, "measured window (default 5)", "S"},
        {"warmup", 0, 0, G_OPTION_ARG_DOUBLE, &o->warmup_s,
         "warm-up seconds once every stream has had a frame out (default 2)", "S"},
        {"warmup-frames", 0, 0, G_OPTION_ARG_INT, &o->warmup_frames,
         "warm-up until this many frames are out instead", "W"},
        {"width", 0, 0, G_OPTION_ARG_INT, &o->width, "frame width (default 1920)", "W"},
        {"height", 0, 0, G_OPTION_ARG_INT, &o->height, "frame height (default 1080)", "H"},
        {"file", 0, 0, G_OPTION_ARG_FILENAME, &o->file,
         "decode this file (filesrc ! decodebin) instead of videotestsrc", "PATH"},
        {"num-buffers", 0, 0, G_OPTION_ARG_INT, &o->num_buffers,
         "videotestsrc frames per stream (default -1: no end)", "N"},
        {"live", 0, 0, G_OPTION_ARG_INT, &o->live_fps,
         "live sources (is-live=true) at this many frames/s each, as cameras; "
         "default 0: as fast as the pipeline takes them",
         "FPS"},
        {"no-instance", 0, 0, G_OPTION_ARG_NONE, &o->no_instance,
         "every element its own model (no model-instance-id)", NULL},
        {"extra", 0, 0, G_OPTION_ARG_STRING, &o->extra,
         "more vkmlinfer properties, as in gst-launch: 'prop=val ...'", "PROPS"},
        {NULL}};
    GOptionContext *ctx = g_option_context_new("- N streams through vkmlinfer");
    GError *err = NULL;
    gboolean ok;

    *o = (Options){.streams = 1,
                   .batch = 1,
                   .in_flight = 2,
                   .seconds = 5,
                   .warmup_s = 2,
                   .width = 1920,
                   .height = 1080,
                   .num_buffers = -1};
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_add_group(ctx, gst_init_get_option_group());
    ok = g_option_context_parse(ctx, argc, argv, &err);
    if (!ok)
        g_printerr("bench_streams: %s\n", err->message);
    else if (!o->model || o->streams < 1 || o->batch < 1 || o->in_flight < 1 || o->seconds <= 0 ||
             o->width < 1 || o->height < 1) {
        g_printerr("bench_streams: --model is required; --streams, --batch, "
                   "--in-flight, --seconds, --width and --height must be positive\n");
        ok = FALSE;
    }
    if (!o->precision)
        o->precision = g_strdup("fp32");
    g_clear_error(&err);
    g_option_context_free(ctx);
    return ok;
}

int main(int argc, char **argv)
{
    Bench b = {0};
    GstBus *bus;
    gint i;

    if (!parse_options(&b.opt, &argc, &argv))
        return 2;
    if (!g_file_test(b.opt.model, G_FILE_TEST_IS_REGULAR) ||
        (b.opt.file && !g_file_test(b.opt.file, G_FILE_TEST_IS_REGULAR))) {
        g_printerr("bench_streams: no such file: %s\n",
                   g_file_test(b.opt.model, G_FILE_TEST_IS_REGULAR) ? b.opt.file : b.opt.model);
        return 2;
    }
    if (!GST_ELEMENT_REGISTER(vkmlinfer, NULL) || !build_pipeline(&b))
        return 1;
    b.loop = g_main_loop_new(NULL, FALSE);
    bus = gst_element_get_bus(b.pipeline);
    gst_bus_add_watch(bus, on_bus, &b);
    b.have_gpu = gpu_memory_used(&b.gpu_before_mib);
    b.t_start = g_get_monotonic_time();
    g_timeout_add(TICK_MS, tick, &b);
    if (gst_element_set_state(b.pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        GstMessage *msg;

        /* the errors that made it fail, before the main loop would show them */
        while ((msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR))) {
            on_bus(bus, msg, &b);
            gst_message_unref(msg);
        }
        g_printerr("bench_streams: the pipeline does not start\n");
        b.exit_code = 1;
    } else
        g_main_loop_run(b.loop);
    gst_element_set_state(b.pipeline, GST_STATE_NULL);
    if (b.exit_code == 0 && b.phase == PHASE_DONE)
        report(&b);
    else
        b.exit_code = 1;
    gst_bus_remove_watch(bus);
    gst_object_unref(bus);
    gst_object_unref(b.first_infer);
    gst_object_unref(b.pipeline);
    for (i = 0; i < b.opt.streams; i++) {
        g_array_free(b.streams[i].latency_ms, TRUE);
        g_mutex_clear(&b.streams[i].lock);
    }
    g_free(b.streams);
    g_main_loop_unref(b.loop);
    g_free(b.opt.model); /* GOption's copies of the string options */
    g_free(b.opt.precision);
    g_free(b.opt.device);
    g_free(b.opt.file);
    g_free(b.opt.extra);
    return b.exit_code;
}
