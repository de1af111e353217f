/* Concat, Split and Slice over channels in the library's layouts: each step of the node
 * that moves a range of channels (mv_channel_range) copies that range of its source, in the
 * layout the source is stored in, to that range of its destination, in its own. Between
 * two channels-last values (or two in ONNX's layout) that is a run of floats per pixel (per
 * image), copied here on the OpenMP team the primitives run on; between two layouts it is
 * one oneDNN reorder of the two ranges, which changes the layout in the same copy. */
#include "cpu/onednn/onednn_node.h"
#include "ops/movement.h"

#include <stdio.h>

/* Whether channels [first, first + count) of x and y stored blocked are whole blocks of
 * both, and neither value pads its last block: then they lie as in ONNX's layout, one run
 * of count * spatial floats per image. */
static bool whole_blocks(const graph_value *x, const graph_value *y, const mv_channels *c)
{
    int64_t b = onednn_block_channels();
    return x->dims[1] % b == 0 && y->dims[1] % b == 0 && c->src_first % b == 0 &&
           c->dst_first % b == 0 && c->count % b == 0;
}

/* The copy of channels [first, first + count) between values x and y stored in `layout`
 * (both channels-last, both in ONNX's layout, or both blocked in whole blocks), when it is
 * one run per pixel or image. */
static bool run_copy(const graph_value *x, const graph_value *y, onednn_layout layout,
                     const mv_channels *c, const void *src, void *dst, onednn_copy *copy)
{
    int64_t spatial = 1;
    for (int d = 2; d < x->rank; d++)
        spatial *= x->dims[d];
    if (layout == ONEDNN_BLOCKED && whole_blocks(x, y, c))
        layout = ONEDNN_PLAIN;
    if (layout == ONEDNN_NXC) /* [N, spatial..., C]: a run of `count` per pixel */
        *copy = (onednn_copy){.kind = ONEDNN_COPY_RUNS,
                              .src = (const float *)src + c->src_first,
                              .dst = (float *)dst + c->dst_first,
                              .pixels = x->dims[0] * spatial,
                              .src_pitch = x->dims[1],
                              .dst_pitch = y->dims[1],
                              .count = c->count};
    else if (layout == ONEDNN_PLAIN) /* [N, C, spatial...]: a run of count * spatial per image */
        *copy = (onednn_copy){.kind = ONEDNN_COPY_RUNS,
                              .src = (const float *)src + c->src_first * spatial,
                              .dst = (float *)dst + c->dst_first * spatial,
                              .pixels = x->dims[0],
                              .src_pitch = x->dims[1] * spatial,
                              .dst_pitch = y->dims[1] * spatial,
                              .count = c->count * spatial};
    else
        return false;
    return true;
}

/* Every step a channel range of float32 values; the output takes the layout of the first
 * source stored in a library layout, or channels-last (the layout the convolutions around
 * take here), so that a library node reading it reads it as it is. */
static bool channels_claim(const graph_value *values, const graph_node *node,
                           const device_value_plan *plans, const onednn_layout *stored,
                           onednn_claim *claim)
{
    (void)plans;
    int steps = mv_step_count(node);
    onednn_layout layout = ONEDNN_PLAIN;
    uint32_t sources = 0;
    if (steps < 1 || steps > ONEDNN_MAX_STEPS)
        return false;
    for (int k = 0; k < steps; k++) {
        mv_channels c;
        if (!mv_channel_range(values, node, k, &c) || c.src >= 32)
            return false;
        int from = node->inputs[c.src], to = node->outputs[c.dst];
        if (values[from].dtype != VKML_DTYPE_FLOAT || values[to].dtype != VKML_DTYPE_FLOAT)
            return false;
        sources |= 1u << c.src;
        if (layout == ONEDNN_PLAIN)
            layout = stored[from];
    }
    if (layout == ONEDNN_PLAIN)
        layout = ONEDNN_NXC;
    *claim = (onednn_claim){
        .layout_inputs = sources, .layout_output = true, .in = layout, .out = layout};
    return true;
}

/* Channels [first, first + count) of value v as stored (`whole`: its descriptor). */
static bool channel_part(const graph_value *v, const dnnl_memory_desc_t *whole, int64_t first,
                         int64_t count, dnnl_memory_desc_t *part)
{
    dnnl_dims_t dims, offsets = {0};
    for (int d = 0; d < v->rank; d++)
        dims[d] = v->dims[d];
    dims[1] = count;
    offsets[1] = first;
    return dnnl_memory_desc_init_submemory(part, whole, dims, offsets) == dnnl_success;
}

static vkml_status channels_build(const onednn_build *b, onednn_node *n, bool *taken,
                                  vkml_error *err)
{
    const graph_node *node = b->node;
    int steps = mv_step_count(node);
    for (int k = 0; k < steps; k++) {
        mv_channels c;
        if (!mv_channel_range(b->values, node, k, &c))
            return VKML_OK;
        int from = node->inputs[c.src], to = node->outputs[c.dst];
        const graph_value *x = &b->values[from], *y = &b->values[to];
        onednn_copy copy;
        if (b->stored[from] == b->stored[to] &&
            run_copy(x, y, b->stored[from], &c, b->ptrs[from], b->ptrs[to], &copy)) {
            if (k == 0)
                snprintf(n->impl, sizeof(n->impl), "copy");
            vkml_status st = onednn_add_copy_step(n, &copy, err);
            if (st)
                return st;
            continue;
        }
        dnnl_memory_desc_t whole_x, whole_y, part_x, part_y;
        onednn_md(&whole_x, x->rank, x->dims, b->stored[from]);
        onednn_md(&whole_y, y->rank, y->dims, b->stored[to]);
        /* a range that cuts a block of channels has no descriptor: the C kernel runs it */
        if (!channel_part(x, &whole_x, c.src_first, c.count, &part_x) ||
            !channel_part(y, &whole_y, c.dst_first, c.count, &part_y))
            return VKML_OK;
        dnnl_primitive_desc_t pd;
        if (dnnl_reorder_primitive_desc_create(&pd, &part_x, onednn_engine(), &part_y,
                                               onednn_engine(), NULL) != dnnl_success)
            return VKML_OK;
        dnnl_memory_t src = onednn_mem(n, &part_x, b->ptrs[from]);
        dnnl_memory_t dst = onednn_mem(n, &part_y, b->ptrs[to]);
        if (!src || !dst) {
            dnnl_primitive_desc_destroy(pd);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
        }
        if (k == 0)
            onednn_note_impl(n, pd);
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
        vkml_status st = onednn_add_pd_step(n, pd, 2, args, err);
        if (st)
            return st;
    }
    *taken = true;
    return VKML_OK;
}

const onednn_op onednn_channels_op = {channels_claim, channels_build};
