/* Vulkan lowering of the movement steps (ops/movement.h): one dispatch per step of the
 * strided, mapped or band kernel (shaders/movement.comp), its variant chosen by element
 * size, so every dtype of the same size shares one SPIR-V. */
#include "vulkan/ops_movement.h"
#include "ops/movement.h"

#include <string.h>

/* Vulkan guarantees 128 bytes of push constants (lavapipe gives no more). */
_Static_assert(sizeof(strided_push) <= 128 && sizeof(mapped_push) <= 128 &&
                   sizeof(band_push) <= 128,
               "movement pushes fit every device");

/* The unsigned dtype of an element size: the kernel variant that moves it. */
vkml_dtype vk_dtype_of_size(size_t size)
{
    switch (size) {
    case 1: return VKML_DTYPE_UINT8;
    case 2: return VKML_DTYPE_UINT16;
    case 4: return VKML_DTYPE_UINT32;
    case 8: return VKML_DTYPE_UINT64;
    default: return VKML_DTYPE_UNDEFINED;
    }
}

static int64_t count_of(const mv_step *s)
{
    int64_t n = 1;
    for (int d = 0; d < s->rank; d++)
        n *= s->dims[d];
    return n;
}

/* A diagonal bound as int32, clamped: diagonals of 32-bit-indexed tensors stay inside. */
static uint32_t diag_bound(int64_t v)
{
    int64_t lim = INT32_MAX;
    return (uint32_t)(int32_t)(v > lim ? lim : v < -lim ? -lim : v);
}

/* Mapped steps compute c - begin in int32: both must leave room. */
static bool mapped_fits(const mv_step *s)
{
    for (int d = 0; d < s->rank; d++) {
        int64_t b = s->begin[d] < 0 ? -s->begin[d] : s->begin[d];
        if (b > INT32_MAX - s->dims[d] || s->src_dims[d] > INT32_MAX)
            return false;
    }
    return true;
}

/* Scalars read at run time on the CPU (Pad's constant_value, Trilu's k) must be constants
 * here: the dispatch is recorded once. */
static bool scalars_constant(const graph_value *values, const graph_node *node, char *why,
                             size_t why_size)
{
    int i = node->op->id == OP_ID_Pad && node->opset >= 11 ? 2
            : node->op->id == OP_ID_Trilu                  ? 1
                                                           : -1;
    if (i < 0 || i >= node->n_inputs || node->inputs[i] < 0 || values[node->inputs[i]].data)
        return true;
    return vk_unsupported(why, why_size, "%s: input %d '%s' is not a constant", node->op_type, i,
                          values[node->inputs[i]].name);
}

VKML_GPU_SUPPORTS_DECL(gpu_movement_supports)
{
    if (!vk_check_tensors(values, node, caps, true, why, why_size) ||
        !scalars_constant(values, node, why, why_size))
        return false;
    const graph_value *y = &values[node->outputs[0]];
    vkml_dtype variant = vk_dtype_of_size(vkml_dtype_size(y->dtype));
    if (!vk_dtype_supported(caps, variant))
        return vk_unsupported(why, why_size, "%s: the device cannot store %s elements",
                              node->op_type, vkml_dtype_name(y->dtype));
    for (int k = 0; k < mv_step_count(node); k++) {
        mv_step s;
        vkml_error err = {0};
        if (mv_describe(values, node, NULL, k, &s, &err))
            return vk_parse_failed(&err, why, why_size);
        if (s.kind == MV_MAPPED && !mapped_fits(&s))
            return vk_unsupported(why, why_size, "%s: pads too large for 32-bit indexing",
                                  node->op_type);
    }
    return true;
}

static void strided_fill(const mv_step *s, strided_push *pc)
{
    pc->rank = (uint32_t)s->rank;
    pc->src_offset = (uint32_t)s->src_offset;
    pc->dst_offset = (uint32_t)s->dst_offset;
    for (int d = 0; d < s->rank; d++) {
        pc->dims[d] = (uint32_t)s->dims[d];
        pc->src_strides[d] = (uint32_t)(int32_t)s->src_strides[d];
        pc->dst_strides[d] = (uint32_t)s->dst_strides[d];
    }
}

static void mapped_fill(const mv_step *s, mapped_push *pc)
{
    pc->rank = (uint32_t)s->rank;
    pc->mode = (uint32_t)s->mode;
    pc->value_lo = (uint32_t)s->value;
    pc->value_hi = (uint32_t)(s->value >> 32);
    for (int d = 0; d < s->rank; d++) {
        pc->dims[d] = (uint32_t)s->dims[d];
        pc->src_dims[d] = (uint32_t)s->src_dims[d];
        pc->begin[d] = (uint32_t)(int32_t)s->begin[d];
    }
}

static void band_fill(const mv_step *s, band_push *pc)
{
    pc->rows = (uint32_t)s->dims[1];
    pc->cols = (uint32_t)s->dims[2];
    pc->lo = diag_bound(s->band_lo);
    pc->hi = diag_bound(s->band_hi);
    pc->from_src = s->band_from_src;
    pc->value_lo = (uint32_t)s->value;
    pc->value_hi = (uint32_t)(s->value >> 32);
    pc->band_value_lo = (uint32_t)s->band_value;
    pc->band_value_hi = (uint32_t)(s->band_value >> 32);
}

/* A strided step over 16-byte units instead of its elements, where its innermost dim runs
 * contiguously on both sides and every offset, stride and that dim's length is a whole
 * number of units (the allocator starts every binding on 16 bytes): false, s unchanged,
 * otherwise. On the H200 (2026-11-24) the YOLOv8n-style model's 14 Concats took 294.5 us
 * of GPU time in 4-byte elements, 245.4 in units (109 of it the last, whose output the GPU
 * writes into host memory), its 16 Slices 87.4 and 71.9. */
static bool widen_to_vec4(mv_step *s, size_t elem_size)
{
    if (s->rank < 1 || elem_size == 0 || elem_size > 16 || 16 % elem_size != 0)
        return false;
    int64_t w = (int64_t)(16 / elem_size);
    int last = s->rank - 1;
    if (s->src_strides[last] != 1 || s->dst_strides[last] != 1 || s->dims[last] % w != 0 ||
        s->src_offset % w != 0 || s->dst_offset % w != 0)
        return false;
    for (int d = 0; d < last; d++)
        if (s->src_strides[d] % w != 0 || s->dst_strides[d] % w != 0)
            return false;
    s->dims[last] /= w;
    for (int d = 0; d < last; d++) {
        s->src_strides[d] /= w;
        s->dst_strides[d] /= w;
    }
    s->src_offset /= w;
    s->dst_offset /= w;
    return true;
}

vkml_status vk_rec_move_step(gpu_recorder *rec, const mv_step *step, int src, int dst,
                             size_t elem_size, vkml_error *err)
{
    int bind[2] = {src, dst};
    if (dst < 0)
        return VKML_OK;
    mv_step s = *step;
    if (mv_step_contiguous(&s) && vk_rec_same_bytes(rec, src, (uint64_t)s.src_offset * elem_size,
                                                    dst, (uint64_t)s.dst_offset * elem_size))
        return VKML_OK; /* a view (plan/views.h): the block is already where it goes */
    vkml_dtype variant = vk_dtype_of_size(elem_size);
    union {
        strided_push strided;
        mapped_push mapped;
        band_push band;
    } pc;
    memset(&pc, 0, sizeof(pc));
    vk_kernel_id kernel;
    uint32_t size;
    bool vec4 = s.kind == MV_STRIDED && widen_to_vec4(&s, elem_size);
    int64_t count = count_of(&s);
    if (s.kind == MV_STRIDED) {
        strided_fill(&s, &pc.strided);
        pc.strided.count = (uint32_t)count;
        kernel = vec4 ? VK_KERNEL_STRIDED_COPY_VEC4 : VK_KERNEL_STRIDED_COPY;
        variant = vec4 ? VKML_DTYPE_UINT32 : variant;
        size = sizeof(pc.strided);
    } else if (s.kind == MV_MAPPED) {
        mapped_fill(&s, &pc.mapped);
        pc.mapped.count = (uint32_t)count;
        kernel = VK_KERNEL_MAPPED_COPY, size = sizeof(pc.mapped);
    } else {
        band_fill(&s, &pc.band);
        pc.band.count = (uint32_t)count;
        kernel = VK_KERNEL_BAND_COPY, size = sizeof(pc.band);
    }
    return vk_rec_kernel_1d(rec, kernel, variant, bind, &pc, size, (uint64_t)count, err);
}

VKML_GPU_DECL(gpu_movement)
{
    for (int k = 0; k < mv_step_count(node); k++) {
        mv_step s;
        vkml_status st = mv_describe(values, node, NULL, k, &s, err);
        int dst = node->outputs[s.dst];
        if (st || (dst >= 0 && (st = vk_rec_move_step(rec, &s, node->inputs[s.src], dst,
                                                      vkml_dtype_size(values[dst].dtype), err))))
            return st;
    }
    return VKML_OK;
}
