/* Primitives timed alone, for the choices a session makes by measurement when it is
 * made (onednn_conv.c: a conv directly or by one of Winograd's kernels). */
#include "core/common.h"
#include "cpu/onednn/onednn_node.h"

#include <stdlib.h>
#include <string.h>

/* The memory a primitive of a conv's or matmul's kind reads and writes: zeros in buffers of
 * its own (the time does not depend on the values), but for its scratchpad. */
static const struct {
    dnnl_query_t query;
    int index, arg;
} trial_mems[] = {
    {dnnl_query_src_md, 0, DNNL_ARG_SRC},
    {dnnl_query_weights_md, 0, DNNL_ARG_WEIGHTS},
    {dnnl_query_weights_md, 1, DNNL_ARG_BIAS},
    {dnnl_query_dst_md, 0, DNNL_ARG_DST},
    {dnnl_query_scratchpad_md, 0, DNNL_ARG_SCRATCHPAD},
};
#define TRIAL_MEMS (sizeof(trial_mems) / sizeof(trial_mems[0]))

typedef struct trial {
    dnnl_primitive_t prim;
    dnnl_memory_t mems[TRIAL_MEMS];
    void *buffers[TRIAL_MEMS];
    dnnl_exec_arg_t args[TRIAL_MEMS];
    int n;
} trial;

static void trial_free(trial *t)
{
    if (t->prim)
        dnnl_primitive_destroy(t->prim);
    for (int i = 0; i < t->n; i++) {
        dnnl_memory_destroy(t->mems[i]);
        free(t->buffers[i]);
    }
    memset(t, 0, sizeof(*t));
}

/* The primitive of pd on zeros in buffers of its own, its scratchpad on `scratch` (shared by
 * the primitives timed together: they run one at a time). */
static bool trial_make(const_dnnl_primitive_desc_t pd, void *scratch, trial *t)
{
    for (size_t i = 0; i < TRIAL_MEMS; i++) {
        const dnnl_memory_desc_t *md =
            dnnl_primitive_desc_query_md(pd, trial_mems[i].query, trial_mems[i].index);
        size_t bytes = md ? dnnl_memory_desc_get_size(md) : 0;
        if (!bytes)
            continue;
        bool shared = trial_mems[i].arg == DNNL_ARG_SCRATCHPAD;
        void *buf = shared ? scratch : onednn_alloc(bytes);
        if (!buf)
            return false;
        if (!shared)
            memset(buf, 0, bytes);
        if (dnnl_memory_create(&t->mems[t->n], md, onednn_engine(), buf) != dnnl_success) {
            if (!shared)
                free(buf);
            return false;
        }
        t->buffers[t->n] = shared ? NULL : buf;
        t->args[t->n] = (dnnl_exec_arg_t){trial_mems[i].arg, t->mems[t->n]};
        t->n++;
    }
    return dnnl_primitive_create(&t->prim, pd) == dnnl_success;
}

/* One run in ms; negative when it fails. */
static double trial_run(const trial *t, dnnl_stream_t stream)
{
    uint64_t start = vkml_now_ns();
    if (dnnl_primitive_execute(t->prim, stream, t->n, t->args) != dnnl_success ||
        dnnl_stream_wait(stream) != dnnl_success)
        return -1;
    return (double)(vkml_now_ns() - start) / 1e6;
}

bool onednn_time_alone(const const_dnnl_primitive_desc_t *pds, int n, int runs, double *ms)
{
    trial t[ONEDNN_TRIAL_MAX] = {{0}};
    dnnl_stream_t stream = NULL;
    size_t scratch_bytes = 0;
    for (int k = 0; k < n && k < ONEDNN_TRIAL_MAX; k++) {
        const dnnl_memory_desc_t *md =
            dnnl_primitive_desc_query_md(pds[k], dnnl_query_scratchpad_md, 0);
        size_t bytes = md ? dnnl_memory_desc_get_size(md) : 0;
        scratch_bytes = bytes > scratch_bytes ? bytes : scratch_bytes;
    }
    void *scratch = scratch_bytes ? onednn_alloc(scratch_bytes) : NULL;
    bool ok =
        n <= ONEDNN_TRIAL_MAX && (scratch || !scratch_bytes) &&
        dnnl_stream_create(&stream, onednn_engine(), dnnl_stream_default_flags) == dnnl_success;
    for (int k = 0; ok && k < n; k++)
        ok = trial_make(pds[k], scratch, &t[k]);
    for (int k = 0; k < n; k++)
        ms[k] = 1e30;
    for (int r = 0; ok && r <= runs; r++) /* the first run of each warms up */
        for (int k = 0; ok && k < n; k++) {
            double run = trial_run(&t[k], stream);
            ok = run >= 0;
            if (r > 0 && run < ms[k])
                ms[k] = run;
        }
    if (stream)
        dnnl_stream_destroy(stream);
    for (int k = 0; k < n && k < ONEDNN_TRIAL_MAX; k++)
        trial_free(&t[k]);
    free(scratch);
    return ok;
}
