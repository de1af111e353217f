/* Vulkan lowering of the index ops (ops/gather.h): one dispatch of the gather kernel, or a
 * copy of data then one dispatch of the scatter kernel (shaders/index.comp), by element
 * size. Without a reduction, duplicate targets get one of their updates, which one undefined
 * (as ONNX says; the GPU writes them in parallel, the CPU in order: tests use distinct
 * targets). Scatters with a reduction run on the CPU: duplicate indices need their updates in
 * order. */
#include "ops/gather.h"
#include "vulkan/ops_movement.h"

#include <string.h>

/* Vulkan guarantees 128 bytes of push constants (lavapipe gives no more). */
_Static_assert(sizeof(index_push) <= 128, "index_push fits every device");

/* The two row schemes the kernel takes (index_push): rows follow the domain densely
 * (GatherElements, ScatterElements), or the domain is [outer, rows, inner]. */
static bool rows_flat(const ix_desc *d)
{
    int64_t s = 1;
    for (int i = d->rank - 1; i >= 0; i--) {
        if (d->dims[i] != 1 && d->row[i] != s)
            return false;
        s *= d->dims[i];
    }
    return true;
}

static bool rows_3d(const ix_desc *d)
{
    return d->rank == 3 && d->row[1] == 1 && d->row[2] == 0;
}

VKML_GPU_SUPPORTS_DECL(gpu_index_supports)
{
    if (!vk_check_tensors(values, node, caps, true, why, why_size))
        return false;
    const graph_value *data = &values[node->inputs[0]];
    if (!vk_dtype_supported(caps, vk_dtype_of_size(vkml_dtype_size(data->dtype))))
        return vk_unsupported(why, why_size, "%s: the device cannot store %s elements",
                              node->op_type, vkml_dtype_name(data->dtype));
    ix_desc d;
    vkml_error err = {0};
    if (ix_describe(values, node, &d, &err))
        return vk_parse_failed(&err, why, why_size);
    if (!rows_flat(&d) && !rows_3d(&d))
        return vk_unsupported(why, why_size, "%s: index rows the kernel does not take",
                              node->op_type);
    if (d.k > VKML_INDEX_MAX_K)
        return vk_unsupported(why, why_size, "%s: index tuples of %d, over %d", node->op_type, d.k,
                              VKML_INDEX_MAX_K);
    if (d.reduction != IX_NONE)
        return vk_unsupported(why, why_size, "%s: reductions run on the CPU (updates in order)",
                              node->op_type);
    return true;
}

static void index_fill(const ix_desc *d, bool idx64, index_push *pc)
{
    memset(pc, 0, sizeof(*pc));
    int64_t count = 1;
    for (int i = 0; i < d->rank; i++) {
        count *= d->dims[i];
        pc->dims[i] = (uint32_t)d->dims[i];
        pc->direct[i] = (uint32_t)d->direct[i];
    }
    for (int t = 0; t < d->k; t++) {
        pc->idx_strides[t] = (uint32_t)d->idx_strides[t];
        pc->idx_bounds[t] = (uint32_t)d->idx_bounds[t];
    }
    pc->count = (uint32_t)count;
    pc->rank = (uint32_t)d->rank;
    pc->k = (uint32_t)d->k;
    pc->flags = (idx64 ? 1u : 0u) | (rows_flat(d) ? 2u : 0u);
    pc->outer_rows = rows_flat(d) ? 0 : (uint32_t)d->row[0];
}

/* out = data, as 32-bit words (the copy kernel of ops_shape.c). */
static vkml_status copy_data(gpu_recorder *rec, const graph_value *values, int in, int out,
                             vkml_error *err)
{
    if (vk_rec_same_memory(rec, in, out))
        return VKML_OK;
    size_t bytes;
    vkml_tensor_bytes(values[out].dtype, values[out].rank, values[out].dims, &bytes);
    copy_push pc = {.count = (uint32_t)((bytes + 3) / 4)};
    int bind[] = {in, out};
    return vk_rec_kernel_1d(rec, VK_KERNEL_COPY, VKML_DTYPE_UINT32, bind, &pc, sizeof(pc), pc.count,
                            err);
}

VKML_GPU_DECL(gpu_index_op)
{
    ix_desc d;
    vkml_status st = ix_describe(values, node, &d, err);
    if (st)
        return st;
    index_push pc;
    index_fill(&d, values[node->inputs[1]].dtype == VKML_DTYPE_INT64, &pc);
    vkml_dtype variant = vk_dtype_of_size(vkml_dtype_size(values[node->inputs[0]].dtype));
    int out = node->outputs[0];
    int64_t block;
    size_t es = vkml_dtype_size(values[node->inputs[0]].dtype);
    if (gather_block(values, node, &block) &&
        vk_rec_same_bytes(rec, node->inputs[0], (uint64_t)block * es, out, 0))
        return VKML_OK; /* a view (plan/views.h): the block is already where it goes */
    if (!d.scatter) {
        int bind[] = {node->inputs[0], node->inputs[1], out};
        return vk_rec_kernel_1d(rec, VK_KERNEL_GATHER, variant, bind, &pc, sizeof(pc), pc.count,
                                err);
    }
    int bind[] = {node->inputs[2], node->inputs[1], out};
    if ((st = copy_data(rec, values, node->inputs[0], out, err)))
        return st;
    return vk_rec_kernel_1d(rec, VK_KERNEL_SCATTER, variant, bind, &pc, sizeof(pc), pc.count, err);
}
