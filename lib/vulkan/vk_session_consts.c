/* A Vulkan session's constants (vk_session.h): conv weights packed over taps where the
 * kernel reads them so, device-local constants shared between sessions (vk_consts.h), and
 * their upload. */
#include "vulkan/ops_gemm.h"
#include "vulkan/vk_consts.h"
#include "vulkan/vk_session.h"
#include "vulkan/vk_transfer.h"

#include <stdlib.h>
#include <string.h>

/* Which constants are uploaded packed over taps: conv weights that only Convs taking
 * gemm_coop.comp's CONV=2 form read on this device (vk_conv_packs_weights), device-local
 * roots of their own (no alias or view shares them). */
void vk_session_mark_packed(device_session *s, const device_session_desc *desc)
{
    int n = s->n_values;
    bool *veto = calloc((size_t)n + 1, sizeof(bool));
    if (!veto)
        return; /* nothing packed: the convs take the other kernels */
    for (int v = 0; v < n; v++) {
        int root = desc->value_plans[v].alias_of;
        if (desc->value_plans[v].used && root >= 0 && root < n)
            veto[root] = veto[v] = true;
    }
    const op_def *conv = op_find("", "Conv");
    for (int c = 0; c < desc->n_chunks; c++)
        for (int i = 0; i < desc->chunks[c].n_nodes; i++) {
            const graph_node *node = &desc->graph->nodes[desc->chunks[c].nodes[i]];
            bool packs = node->op == conv && node->n_inputs > 1 &&
                         vk_conv_packs_weights(desc->values, node, &s->vd->caps, desc->fast_math);
            for (int k = 0; k < node->n_inputs; k++) {
                int v = node->inputs[k];
                if (v < 0 || v >= n)
                    continue;
                if (packs && k == 1)
                    s->packed[v] = true;
                else
                    veto[v] = true;
            }
        }
    for (int v = 0; v < n; v++)
        s->packed[v] = s->packed[v] && !veto[v] && s->want_shared[v];
    free(veto);
}

/* The weights [M][C][taps] of value v as [M][taps][C], in a new host buffer (NULL: out of
 * memory). */
static void *pack_taps(const device_session_desc *desc, int v)
{
    const graph_value *w = &desc->values[v];
    size_t elem = vkml_dtype_size(w->dtype), bytes = 0;
    if (w->rank < 3 || !elem || !vkml_tensor_bytes(w->dtype, w->rank, w->dims, &bytes))
        return NULL;
    int64_t m = w->dims[0], c = w->dims[1], taps = 1;
    for (int d = 2; d < w->rank; d++)
        taps *= w->dims[d];
    char *out = malloc(bytes ? bytes : 1);
    const char *in = desc->value_plans[v].constant;
    for (int64_t i = 0; out && i < m; i++)
        for (int64_t ch = 0; ch < c; ch++)
            for (int64_t t = 0; t < taps; t++)
                memcpy(out + (size_t)((i * taps + t) * c + ch) * elem,
                       in + (size_t)((i * c + ch) * taps + t) * elem, elem);
    return out;
}

/* Constants: device-local ones found in (or added to) the device's shared buffers, the
 * others copied into their own memory; new ones uploaded (mapped: copied straight in,
 * else through staging buffers). Under consts_lock, so that no session sees a shared
 * constant before it is uploaded; a failed upload takes its new entries back out. */
vkml_status vk_session_upload_constants(device_session *s, const device_session_desc *desc,
                                        vkml_error *err)
{
    vkml_status status = VKML_OK;
    vk_upload_item *items = calloc((size_t)s->n_values + 1, sizeof(*items));
    bool *fresh = calloc((size_t)s->n_values + 1, sizeof(bool));
    void **packed = calloc((size_t)s->n_values + 1, sizeof(void *)); /* pack_taps's copies */
    int n_items = 0;
    if (!items || !fresh || !packed) {
        free(items);
        free(fresh);
        free(packed);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    }
    vk_device *vd = s->vd;
    pthread_mutex_lock(&vd->consts_lock);
    for (int v = 0; v < s->n_values && status == VKML_OK; v++) {
        const device_value_plan *vp = &desc->value_plans[v];
        if (s->want_shared[v]) {
            size_t bytes = 0;
            vk_session_value_bytes(desc, v, &bytes, err);
            vk_const_layout layout = s->packed[v] ? VK_CONST_CONV_TAPS : VK_CONST_AS_IS;
            vk_const *c = vk_const_find(vd, vp->constant, bytes, layout);
            if (!c && (status = vk_const_add(vd, vp->constant, bytes, layout, &c, err)) != VKML_OK)
                break;
            fresh[v] = c->refs == 1;
            s->shared[v] = true;
            s->mem[v] = c->mem;
            if (!fresh[v])
                continue;
        }
        if (!vp->used || !vp->constant || s->mem[v].size == 0)
            continue;
        const void *data = vp->constant;
        if (s->packed[v] && !(data = packed[v] = pack_taps(desc, v))) {
            status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
            break;
        }
        if (s->mem[v].map)
            memcpy(s->mem[v].map, data, s->mem[v].size);
        else
            items[n_items++] = (vk_upload_item){data, s->mem[v].size, &s->mem[v]};
    }
    if (status == VKML_OK && n_items)
        status = vk_upload(vd, s->cmd_pool, items, n_items, err);
    for (int v = 0; status != VKML_OK && v < s->n_values; v++)
        if (fresh[v]) { /* never uploaded: out of the cache before anyone sees it */
            vk_const_release(vd, &s->mem[v]);
            s->shared[v] = false;
        }
    pthread_mutex_unlock(&vd->consts_lock);
    for (int v = 0; v < s->n_values; v++)
        free(packed[v]);
    free(items);
    free(fresh);
    free(packed);
    return status;
}
