/* Packed weights (onednn_node.h: onednn_pack), shared by every library node of the process
 * that packs the same constant bytes into the same layout: the layers of a model that share
 * an initializer, the sessions of one model (runs in flight, streams). An entry lives while
 * a node holds it, so its key (the constant's address) is alive as long as the entry. */
#include "cpu/onednn/onednn_node.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct onednn_packed {
    const void *data;
    dnnl_memory_desc_t have, want;
    void *bytes;
    int refs;
    onednn_packed *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static onednn_packed *entries;

/* Reorders data (have) into a new buffer (want); NULL with err filled on failure. Float16
 * data becomes float32 first (F16C; oneDNN's float16 reorder is scalar). */
static void *pack(const dnnl_memory_desc_t *have, const void *data, const dnnl_memory_desc_t *want,
                  vkml_error *err)
{
    if (have->data_type == dnnl_f16 && want->data_type == dnnl_f32) {
        size_t count = dnnl_memory_desc_get_size(have) / sizeof(uint16_t);
        float *wide = malloc(sizeof(float) * (count ? count : 1));
        if (!wide) {
            vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory packing weights");
            return NULL;
        }
        vkml_floats_from_halves(wide, data, count);
        dnnl_memory_desc_t wide_md = *have;
        wide_md.data_type = dnnl_f32;
        void *bytes = pack(&wide_md, wide, want, err);
        free(wide);
        return bytes;
    }
    size_t size = dnnl_memory_desc_get_size(want);
    void *bytes = onednn_alloc(size);
    dnnl_memory_t src = NULL, dst = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_stream_t stream = NULL;
    dnnl_status_t s = bytes ? dnnl_success : dnnl_out_of_memory;
    if (s == dnnl_success)
        s = dnnl_memory_create(&src, have, onednn_engine(), (void *)data);
    if (s == dnnl_success)
        s = dnnl_memory_create(&dst, want, onednn_engine(), bytes);
    if (s == dnnl_success)
        s = dnnl_reorder_primitive_desc_create(&pd, have, onednn_engine(), want, onednn_engine(),
                                               NULL);
    if (s == dnnl_success)
        s = dnnl_primitive_create(&prim, pd);
    if (s == dnnl_success)
        s = dnnl_stream_create(&stream, onednn_engine(), dnnl_stream_default_flags);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    if (s == dnnl_success)
        s = dnnl_primitive_execute(prim, stream, 2, args);
    if (s == dnnl_success)
        s = dnnl_stream_wait(stream);
    if (stream)
        dnnl_stream_destroy(stream);
    if (prim)
        dnnl_primitive_destroy(prim);
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (dst)
        dnnl_memory_destroy(dst);
    if (src)
        dnnl_memory_destroy(src);
    if (s != dnnl_success) {
        free(bytes);
        onednn_check(s, "packing weights", err);
        return NULL;
    }
    return bytes;
}

void *onednn_packed_get(const dnnl_memory_desc_t *have, const void *data,
                        const dnnl_memory_desc_t *want, onednn_packed **ref, vkml_error *err)
{
    pthread_mutex_lock(&lock);
    onednn_packed *e = entries;
    while (e && !(e->data == data && dnnl_memory_desc_equal(&e->have, have) &&
                  dnnl_memory_desc_equal(&e->want, want)))
        e = e->next;
    if (e) {
        e->refs++;
    } else if ((e = calloc(1, sizeof(*e))) && (e->bytes = pack(have, data, want, err))) {
        *e = (onednn_packed){
            .data = data, .have = *have, .want = *want, .bytes = e->bytes, .refs = 1};
        e->next = entries;
        entries = e;
    } else {
        if (e)
            free(e);
        else
            vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory packing weights");
        e = NULL;
    }
    pthread_mutex_unlock(&lock);
    *ref = e;
    return e ? e->bytes : NULL;
}

void onednn_packed_release(onednn_packed **ref)
{
    onednn_packed *e = *ref;
    if (!e)
        return;
    *ref = NULL;
    pthread_mutex_lock(&lock);
    if (--e->refs == 0) {
        onednn_packed **at = &entries;
        while (*at != e)
            at = &(*at)->next;
        *at = e->next;
        free(e->bytes);
        free(e);
    }
    pthread_mutex_unlock(&lock);
}
