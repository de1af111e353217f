/* VKML_PRECISION_FP16: float16 where it pays. The session made at FP16 (its float16 plan,
 * passes/precision.h) is timed against the same model at FP32 on the same devices, both
 * fed zeros (or the fixed input values), in alternating rounds after a warm-up; the
 * faster one is the session. The choice is kept in the model (onnx/model.h), keyed by the
 * devices, input shapes and pre-processing, so that every later session of the model so
 * made (many streams of one model) takes it without timing again. */
#include "onnx/model.h"
#include "plan/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Warm-up before timing (an idle GPU's clocks rise over a few runs), each round's length
 * per precision, rounds, and the most the whole measurement takes once a round is done. */
#define FP16_WARM_NS (100 * 1000000ull)
#define FP16_ROUND_NS (40 * 1000000ull)
#define FP16_ROUNDS 3
#define FP16_BUDGET_NS (2000 * 1000000ull)

typedef struct timing_io {
    vkml_tensor *in, *out;
    size_t n_in, n_out;
    bool *owned;         /* per input: data allocated here (not a fixed value) */
    bool *run_allocates; /* per output: unbounded, the run allocates its data */
} timing_io;

static void io_free(timing_io *io)
{
    for (size_t i = 0; io->in && i < io->n_in; i++)
        if (io->owned[i])
            free(io->in[i].data);
    for (size_t i = 0; io->out && i < io->n_out; i++)
        vkml_tensor_release(&io->out[i]);
    free(io->in);
    free(io->out);
    free(io->owned);
    free(io->run_allocates);
}

/* Zeros (or the fixed value) for every input, room for every output; false when an input
 * is strings or out of memory (then nothing is timed). */
static bool io_make(vkml_session *s, const vkml_session_params *params, timing_io *io)
{
    vkml_error ignored;
    io->n_in = vkml_session_input_count(s);
    io->n_out = vkml_session_output_count(s);
    io->in = calloc(io->n_in + 1, sizeof(vkml_tensor));
    io->out = calloc(io->n_out + 1, sizeof(vkml_tensor));
    io->owned = calloc(io->n_in + 1, sizeof(bool));
    io->run_allocates = calloc(io->n_out + 1, sizeof(bool));
    if (!io->in || !io->out || !io->owned || !io->run_allocates)
        return false;
    for (size_t i = 0; i < io->n_in; i++) {
        const vkml_tensor_info *info = vkml_session_input(s, i);
        vkml_tensor *t = &io->in[i];
        size_t bytes;
        if (info->dtype == VKML_DTYPE_STRING ||
            !vkml_tensor_bytes(info->dtype, info->rank, info->dims, &bytes))
            return false;
        t->dtype = info->dtype;
        t->rank = info->rank;
        memcpy(t->dims, info->dims, sizeof(t->dims));
        const vkml_tensor *fixed = params->input_values && i < vkml_model_input_count(s->model)
                                       ? &params->input_values[i]
                                       : NULL;
        if (fixed && fixed->data) {
            t->data = fixed->data;
            t->size = fixed->size;
            continue;
        }
        t->size = bytes;
        if (!(t->data = calloc(1, bytes ? bytes : 1)))
            return false;
        io->owned[i] = true;
    }
    for (size_t i = 0; i < io->n_out; i++) {
        if (vkml_session_alloc_output(s, i, &io->out[i], &ignored) != VKML_OK)
            return false;
        io->run_allocates[i] = !io->out[i].data;
    }
    return true;
}

/* Runs `s` for `ns` (at least `min_runs` runs); *us the mean time of a run. */
static vkml_status time_runs(vkml_session *s, timing_io *io, uint64_t ns, int min_runs, double *us,
                             vkml_error *err)
{
    uint64_t start = vkml_now_ns(), now = start;
    int runs = 0;
    while (runs < min_runs || now - start < ns) {
        vkml_status st = vkml_session_run(s, io->in, io->n_in, io->out, io->n_out, err);
        for (size_t i = 0; i < io->n_out; i++)
            if (io->run_allocates[i]) {
                vkml_tensor_release(&io->out[i]);
                const vkml_tensor_info *info = vkml_session_output(s, i);
                io->out[i].dtype = info->dtype;
                io->out[i].rank = info->rank;
                memcpy(io->out[i].dims, info->dims, sizeof(io->out[i].dims));
            }
        if (st != VKML_OK)
            return st;
        runs++;
        now = vkml_now_ns();
    }
    *us = (double)(now - start) / 1e3 / runs;
    return VKML_OK;
}

/* The key of a choice: the session's devices, its inputs' shapes, pre-processing. */
static void choice_key(const vkml_session *s, const vkml_session_params *params, char *key,
                       size_t size)
{
    size_t at = 0;
    at += (size_t)snprintf(key + at, size - at, "device %d:%d%s", s->device, s->target.n_devices,
                           params->preprocess ? " pre" : "");
    for (size_t i = 0; i < s->n_inputs && at < size; i++) {
        const vkml_tensor_info *info = &s->inputs[i];
        at += (size_t)snprintf(key + at, size - at, " %d", (int)info->dtype);
        for (int d = 0; d < info->rank && at < size; d++)
            at += (size_t)snprintf(key + at, size - at, "%s%lld", d ? "x" : ":",
                                   (long long)info->dims[d]);
    }
}

/* Times the two sessions in alternating rounds: the best round of each. */
static vkml_status measure(vkml_session *half, vkml_session *full,
                           const vkml_session_params *params, model_fp16_choice *c, vkml_error *err)
{
    timing_io io = {0};
    if (!io_make(half, params, &io)) {
        io_free(&io);
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "inputs of strings, or out of memory for the runs' tensors");
    }
    uint64_t start = vkml_now_ns();
    vkml_status st = time_runs(half, &io, FP16_WARM_NS / 2, 1, &c->us_half, err);
    if (st == VKML_OK)
        st = time_runs(full, &io, FP16_WARM_NS / 2, 1, &c->us_float, err);
    /* runs so long that the warm-up took half the budget: its times decide */
    bool long_runs = vkml_now_ns() - start > FP16_BUDGET_NS / 2;
    for (int r = 0; st == VKML_OK && !long_runs && r < FP16_ROUNDS; r++) {
        double th = 0, tf = 0;
        if ((st = time_runs(half, &io, FP16_ROUND_NS, 1, &th, err)) ||
            (st = time_runs(full, &io, FP16_ROUND_NS, 1, &tf, err)))
            break;
        if (r == 0)
            c->us_half = c->us_float = 1e300; /* the warm-up's times no longer count */
        c->us_half = th < c->us_half ? th : c->us_half;
        c->us_float = tf < c->us_float ? tf : c->us_float;
        if (vkml_now_ns() - start > FP16_BUDGET_NS)
            break;
    }
    io_free(&io);
    c->half = c->us_half <= c->us_float;
    return st;
}

static void log_choice(const vkml_session *half, const model_fp16_choice *c, bool earlier)
{
    VKML_LOGI("precision fp16: a run took %.1f us in float16 (%d nodes), %.1f us in float32 "
              "on these devices%s; the session runs at %s",
              c->us_half, half->n_half, c->us_float,
              earlier ? " (timed by an earlier session of the model)" : "",
              c->half ? "float16" : "float32");
}

void session_choose_fp16(vkml_context *ctx, vkml_model *model, const vkml_session_params *params,
                         vkml_session **out)
{
    vkml_session *half = *out;
    if (!half->own_graph || half->n_half == 0)
        return; /* nothing runs in float16: the plan is float32's */
    model_fp16_choice c = {0};
    choice_key(half, params, c.key, sizeof(c.key));
    const model_fp16_choice *known = model_fp16_choice_find(model, c.key);
    if (known && known->half) {
        log_choice(half, known, true);
        return;
    }
    vkml_session_params p = *params;
    p.precision = VKML_PRECISION_FP32;
    vkml_session *full = NULL;
    vkml_error err = {0};
    if (vkml_session_create(ctx, model, &p, &full, &err) != VKML_OK) {
        VKML_LOGW("precision fp16: the float32 plan to time it against failed (%s); the "
                  "session runs at float16",
                  err.message);
        return;
    }
    if (!known) {
        if (measure(half, full, params, &c, &err) != VKML_OK) {
            VKML_LOGW("precision fp16: timing it against float32 failed (%s); the session "
                      "runs at float16",
                      err.message);
            vkml_session_destroy(&full);
            return;
        }
        model_fp16_choice_add(model, &c);
    }
    log_choice(half, known ? known : &c, known != NULL);
    if ((known ? known : &c)->half) {
        vkml_session_destroy(&full);
        return;
    }
    vkml_session_destroy(out);
    *out = full;
}
