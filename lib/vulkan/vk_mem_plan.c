#include "vulkan/vk_mem_plan.h"

#include <stdlib.h>

typedef struct life {
    int root;
    int chunk; /* -1: not seen yet; -2: seen in several chunks */
    int first, last;
    VkDeviceSize size, offset;
} life;

/* Records that node position pos of chunk c touches value v. */
static void touch(life *lives, const int *root, int v, int c, int pos)
{
    if (v < 0)
        return;
    life *l = &lives[root[v]];
    if (l->chunk == -1) {
        l->chunk = c;
        l->first = l->last = pos;
    } else if (l->chunk != c) {
        l->chunk = -2;
    } else {
        l->first = pos < l->first ? pos : l->first;
        l->last = pos > l->last ? pos : l->last;
    }
}

static bool lives_overlap(const life *a, const life *b)
{
    return a->chunk != b->chunk || (a->first <= b->last && b->first <= a->last);
}

static int by_size_desc(const void *pa, const void *pb)
{
    const life *a = *(life *const *)pa, *b = *(life *const *)pb;
    return a->size < b->size ? 1 : a->size > b->size ? -1 : a->root - b->root;
}

static int by_offset(const void *pa, const void *pb)
{
    const life *a = *(life *const *)pa, *b = *(life *const *)pb;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Lowest offset where l fits between the placed lives it conflicts with. */
static VkDeviceSize first_fit(life *l, life **placed, int n_placed, life **scratch,
                              VkDeviceSize alignment)
{
    int n = 0;
    for (int i = 0; i < n_placed; i++)
        if (lives_overlap(l, placed[i]))
            scratch[n++] = placed[i];
    qsort(scratch, (size_t)n, sizeof(*scratch), by_offset);
    VkDeviceSize offset = 0;
    for (int i = 0; i < n; i++) {
        if (scratch[i]->offset >= offset + l->size)
            break;
        VkDeviceSize end = scratch[i]->offset + scratch[i]->size;
        end = (end + alignment - 1) / alignment * alignment;
        offset = end > offset ? end : offset;
    }
    return offset;
}

vkml_status vk_mem_plan(const device_session_desc *desc, const int *root, const size_t *bytes,
                        const bool *transient, VkDeviceSize alignment, VkDeviceSize *offsets,
                        bool *placed, VkDeviceSize *total, vkml_error *err)
{
    int n = desc->graph->n_values;
    life *lives = calloc((size_t)n + 1, sizeof(*lives));
    life **order = calloc((size_t)n + 1, sizeof(*order));
    life **scratch = calloc((size_t)n + 1, sizeof(*scratch));
    *total = 0;
    if (!lives || !order || !scratch) {
        free(lives);
        free(order);
        free(scratch);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan memory plan: out of host memory");
    }
    for (int v = 0; v < n; v++)
        /* Whole words, at least one: descriptor ranges are rounded so (vk_record.c). */
        lives[v] = (life){.root = v, .chunk = -1, .size = (bytes[v] ? bytes[v] + 3 : 4) / 4 * 4};
    for (int c = 0; c < desc->n_chunks; c++) {
        for (int i = 0; i < desc->chunks[c].n_nodes; i++) {
            const graph_node *node = &desc->graph->nodes[desc->chunks[c].nodes[i]];
            for (int k = 0; k < node->n_inputs; k++)
                touch(lives, root, node->inputs[k], c, i);
            for (int k = 0; k < node->n_outputs; k++)
                touch(lives, root, node->outputs[k], c, i);
        }
    }
    int n_order = 0;
    for (int v = 0; v < n; v++) {
        placed[v] = false;
        if (transient[v] && root[v] == v && lives[v].chunk >= 0)
            order[n_order++] = &lives[v];
    }
    qsort(order, (size_t)n_order, sizeof(*order), by_size_desc);
    for (int i = 0; i < n_order; i++) {
        life *l = order[i];
        l->offset = first_fit(l, order, i, scratch, alignment);
        offsets[l->root] = l->offset;
        placed[l->root] = true;
        VkDeviceSize end = l->offset + l->size;
        *total = end > *total ? end : *total;
    }
    free(lives);
    free(order);
    free(scratch);
    return VKML_OK;
}
