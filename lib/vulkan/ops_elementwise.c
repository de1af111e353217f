/* Vulkan lowerings of the elementwise ops: dense unary kernels, broadcasting binary and
 * ternary kernels (one SPIR-V per op and dtype, shaders/eltwise_*.comp), Cast per
 * destination type, variadic ops folded pairwise through the output. */
#include "ops/elementwise.h"
#include "vulkan/vk_ops.h"

#include <string.h>

#define NO_KERNEL VK_KERNEL_COUNT

/* The kernel of an op; ops with a choice (attributes, exponent type) are resolved by
 * pick_kernel. The unary ops and predicates are eltwise_unary.comp's u_<id> rows
 * (shaders/meson.build), VK_KERNEL_U_<ID>. */
#define UNARY_KERNEL(id) [ELT_##id] = VK_KERNEL_U_##id,
#define KERNEL_OF_ELT_UNARY(id) UNARY_KERNEL(id)
#define KERNEL_OF_ELT_PREDICATE(id) UNARY_KERNEL(id)
#define KERNEL_OF_ELT_BINARY(id)
#define KERNEL_OF_ELT_COMPARE(id)
#define KERNEL_OF_ELT_VARIADIC(id)
#define KERNEL_OF_ELT_SPECIAL(id)
#define KERNEL_OF_ELT_INTERNAL(id)
#define KERNEL_OF(id, name, kind, fuse, code, gpu) KERNEL_OF_##kind(id)
static const vk_kernel_id op_kernels[ELT_OP_COUNT] = {
    [ELT_GELU_TANH] = VK_KERNEL_U_GELU_TANH,
    [ELT_ADD] = VK_KERNEL_B_ADD,
    [ELT_SUB] = VK_KERNEL_B_SUB,
    [ELT_MUL] = VK_KERNEL_B_MUL,
    [ELT_DIV] = VK_KERNEL_B_DIV,
    [ELT_MOD] = VK_KERNEL_B_MOD,
    [ELT_BIT_SHIFT] = VK_KERNEL_B_SHR,
    [ELT_BITWISE_AND] = VK_KERNEL_B_BITWISE_AND,
    [ELT_BITWISE_OR] = VK_KERNEL_B_BITWISE_OR,
    [ELT_BITWISE_XOR] = VK_KERNEL_B_BITWISE_XOR,
    [ELT_AND] = VK_KERNEL_B_AND,
    [ELT_OR] = VK_KERNEL_B_OR,
    [ELT_XOR] = VK_KERNEL_B_XOR,
    [ELT_PRELU] = VK_KERNEL_B_PRELU,
    [ELT_EQUAL] = VK_KERNEL_B_EQUAL,
    [ELT_LESS] = VK_KERNEL_B_LESS,
    [ELT_LESS_EQUAL] = VK_KERNEL_B_LESS_EQUAL,
    [ELT_GREATER] = VK_KERNEL_B_GREATER,
    [ELT_GREATER_EQUAL] = VK_KERNEL_B_GREATER_EQUAL,
    [ELT_MIN] = VK_KERNEL_B_MIN,
    [ELT_MAX] = VK_KERNEL_B_MAX,
    [ELT_SUM] = VK_KERNEL_B_ADD,
    [ELT_MEAN] = VK_KERNEL_B_ADD,
    [ELT_CLIP] = VK_KERNEL_T_CLIP,
    [ELT_POW] = VK_KERNEL_B_POW,
    [ELT_WHERE] = VK_KERNEL_T_WHERE,
    [ELT_CAST] = NO_KERNEL,
    [ELT_CAST_LIKE] = NO_KERNEL,
    [ELT_DROPOUT] = VK_KERNEL_COPY,
    ELTWISE_OPS(KERNEL_OF) /* the unary ops and predicates */
};

/* cast_to_<dtype> per destination dtype number. */
static const vk_kernel_id cast_kernels[VKML_DTYPE_BFLOAT16 + 1] = {
    [VKML_DTYPE_FLOAT] = VK_KERNEL_CAST_TO_F32,     [VKML_DTYPE_FLOAT16] = VK_KERNEL_CAST_TO_F16,
    [VKML_DTYPE_DOUBLE] = VK_KERNEL_CAST_TO_F64,    [VKML_DTYPE_INT8] = VK_KERNEL_CAST_TO_I8,
    [VKML_DTYPE_UINT8] = VK_KERNEL_CAST_TO_U8,      [VKML_DTYPE_INT16] = VK_KERNEL_CAST_TO_I16,
    [VKML_DTYPE_UINT16] = VK_KERNEL_CAST_TO_U16,    [VKML_DTYPE_INT32] = VK_KERNEL_CAST_TO_I32,
    [VKML_DTYPE_UINT32] = VK_KERNEL_CAST_TO_U32,    [VKML_DTYPE_INT64] = VK_KERNEL_CAST_TO_I64,
    [VKML_DTYPE_UINT64] = VK_KERNEL_CAST_TO_U64,    [VKML_DTYPE_BOOL] = VK_KERNEL_CAST_TO_BOOL,
    [VKML_DTYPE_BFLOAT16] = VK_KERNEL_CAST_TO_BF16,
};

/* Pow's kernel per exponent dtype when the exponent's type is not the base's. */
static const vk_kernel_id pow_exponent_kernels[VKML_DTYPE_UINT64 + 1] = {
    [VKML_DTYPE_INT32] = VK_KERNEL_B_POW_EXP_I32,  [VKML_DTYPE_INT64] = VK_KERNEL_B_POW_EXP_I64,
    [VKML_DTYPE_UINT32] = VK_KERNEL_B_POW_EXP_U32, [VKML_DTYPE_UINT64] = VK_KERNEL_B_POW_EXP_U64,
    [VKML_DTYPE_FLOAT] = VK_KERNEL_B_POW_EXP_F32,  [VKML_DTYPE_DOUBLE] = VK_KERNEL_B_POW_EXP_F64,
};

static vkml_dtype dtype_of(const graph_value *values, const graph_node *node, int i)
{
    return i < node->n_inputs && node->inputs[i] >= 0 ? values[node->inputs[i]].dtype
                                                      : VKML_DTYPE_UNDEFINED;
}

/* The kernel and variant dtype the node runs with (NO_KERNEL when none). */
static vk_kernel_id pick_kernel(const graph_value *values, const graph_node *node,
                                vkml_dtype *dtype)
{
    const eltwise_params *p = node->params;
    *dtype = dtype_of(values, node, p->op == ELT_WHERE ? 1 : 0);
    vkml_dtype b = dtype_of(values, node, 1);
    switch (p->op) {
    case ELT_MOD: return p->fmod ? VK_KERNEL_B_FMOD : VK_KERNEL_B_MOD;
    case ELT_BIT_SHIFT: return p->shift_left ? VK_KERNEL_B_SHL : VK_KERNEL_B_SHR;
    case ELT_CLIP: return node->opset < 11 ? VK_KERNEL_U_CLIP : VK_KERNEL_T_CLIP;
    case ELT_POW:
        return b == *dtype                                         ? VK_KERNEL_B_POW
               : b <= VKML_DTYPE_UINT64 && pow_exponent_kernels[b] ? pow_exponent_kernels[b]
                                                                   : NO_KERNEL;
    case ELT_CAST:
    case ELT_CAST_LIKE: {
        vkml_dtype to = values[node->outputs[0]].dtype;
        return to <= VKML_DTYPE_BFLOAT16 && cast_kernels[to] ? cast_kernels[to] : NO_KERNEL;
    }
    default: return op_kernels[p->op] ? op_kernels[p->op] : NO_KERNEL;
    }
}

VKML_GPU_SUPPORTS_DECL(gpu_eltwise_supports)
{
    const eltwise_params *p = node->params;
    if (!vk_check_tensors(values, node, caps, true, why, why_size))
        return false;
    for (int i = 0; i < node->n_inputs + node->n_outputs; i++) {
        int v = i < node->n_inputs ? node->inputs[i] : node->outputs[i - node->n_inputs];
        if (v >= 0 && !vk_dtype_supported(caps, values[v].dtype))
            return vk_unsupported(why, why_size, "the device lacks %s storage for '%s'",
                                  vkml_dtype_name(values[v].dtype), values[v].name);
    }
    vkml_dtype dtype;
    vk_kernel_id kernel = pick_kernel(values, node, &dtype);
    if (kernel == NO_KERNEL ||
        (kernel != VK_KERNEL_COPY && vk_kernel_variant(kernel, (int)dtype) < 0))
        return vk_unsupported(why, why_size, "no Vulkan kernel for %s of %s%s%s", node->op_type,
                              vkml_dtype_name(dtype), p->op == ELT_POW ? " with exponent " : "",
                              p->op == ELT_POW ? vkml_dtype_name(dtype_of(values, node, 1)) : "");
    if (kernel == VK_KERNEL_T_CLIP || kernel == VK_KERNEL_T_WHERE) {
        int64_t strides[3][VKML_MAX_RANK];
        eltwise_layout l;
        eltwise_layout_of(values, node, 0, 3, strides, &l);
        if (l.rank > VKML_TERNARY_MAX_RANK)
            return vk_unsupported(why, why_size, "%s of rank %d after merging dims (at most %d)",
                                  node->op_type, l.rank, VKML_TERNARY_MAX_RANK);
    }
    return true;
}

/* Elements per invocation of the dense kernels (shaders/common/index.glsl, DENSE_ELEMS). */
#define VK_DENSE_ELEMS 4

/* Dense unary dispatch x -> y (eltwise_unary.comp, cast.comp). */
static vkml_status rec_unary(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype, int x, int y,
                             const unary_push *pc, vkml_error *err)
{
    int bind[] = {x, y};
    uint64_t invocations = ((uint64_t)pc->count + VK_DENSE_ELEMS - 1) / VK_DENSE_ELEMS;
    return vk_rec_kernel_1d(rec, kernel, dtype, bind, pc, sizeof(*pc), invocations, err);
}

/* Broadcast binary dispatch (a, b) -> y over a layout of two stride rows. */
static vkml_status rec_binary(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype, int a,
                              int b, int y, const eltwise_layout *l, vkml_error *err)
{
    binary_push pc = {.count = vk_u32((int64_t)l->count), .rank = (uint32_t)l->rank};
    for (int d = 0; d < l->rank; d++) {
        pc.dims[d] = vk_u32(l->dims[d]);
        pc.a_strides[d] = vk_u32(l->strides[0][d]);
        pc.b_strides[d] = vk_u32(l->strides[1][d]);
    }
    int bind[] = {a, b, y};
    uint64_t invocations = ((uint64_t)l->count + VK_DENSE_ELEMS - 1) / VK_DENSE_ELEMS;
    return vk_rec_kernel_1d(rec, kernel, dtype, bind, &pc, sizeof(pc), invocations, err);
}

/* Min, Max, Sum, Mean: y = x0 op x1, y = y op xk, then (Mean) y /= n. */
static vkml_status rec_variadic(gpu_recorder *rec, const graph_value *values,
                                const graph_node *node, vk_kernel_id kernel, vkml_dtype dtype,
                                vkml_error *err)
{
    const eltwise_params *p = node->params;
    int64_t strides[2][VKML_MAX_RANK];
    eltwise_layout l;
    int y = node->outputs[0];
    if (node->n_inputs == 1)
        return gpu_copy(rec, values, node, err);
    eltwise_layout_of(values, node, 0, 2, strides, &l);
    vkml_status st = rec_binary(rec, kernel, dtype, node->inputs[0], node->inputs[1], y, &l, err);
    for (int k = 2; k < node->n_inputs && st == VKML_OK; k++) {
        eltwise_layout_fold(values, node, k, strides, &l);
        st = rec_binary(rec, kernel, dtype, y, node->inputs[k], y, &l, err);
    }
    if (st != VKML_OK || p->op != ELT_MEAN)
        return st;
    unary_push pc = {.count = vk_u32((int64_t)l.count), .alpha = (float)node->n_inputs};
    return rec_unary(rec, VK_KERNEL_U_DIV_SCALAR, dtype, y, y, &pc, err);
}

/* Where (condition, x, y) and Clip (x, min, max) from opset 11. */
static vkml_status rec_ternary(gpu_recorder *rec, const graph_value *values, const graph_node *node,
                               vk_kernel_id kernel, vkml_dtype dtype, vkml_error *err)
{
    int64_t strides[3][VKML_MAX_RANK];
    eltwise_layout l;
    eltwise_layout_of(values, node, 0, 3, strides, &l);
    ternary_push pc = {.count = vk_u32((int64_t)l.count), .rank = (uint32_t)l.rank};
    int bind[4] = {node->inputs[0], node->inputs[0], node->inputs[0], node->outputs[0]};
    for (int k = 1; k < 3; k++)
        if (k < node->n_inputs && node->inputs[k] >= 0) {
            bind[k] = node->inputs[k];
            pc.flags |= 1u << (k - 1);
        }
    for (int d = 0; d < l.rank; d++) {
        pc.dims[d] = vk_u32(l.dims[d]);
        for (int k = 0; k < 3; k++)
            pc.strides[k * VKML_TERNARY_MAX_RANK + d] = vk_u32(strides[k][d]);
    }
    return vk_rec_kernel_1d(rec, kernel, dtype, bind, &pc, sizeof(pc), l.count, err);
}

/* Inputs the kernels read (a node changed after inference is refused, not read past). */
static int inputs_needed(const eltwise_params *p)
{
    switch (p->kind) {
    case ELT_BINARY:
    case ELT_COMPARE: return 2;
    default: return p->op == ELT_POW || p->op == ELT_CAST_LIKE ? 2 : p->op == ELT_WHERE ? 3 : 1;
    }
}

/* Add, Sub or Mul of a float tensor x and a one-element float constant c that adds no
 * dims (x + 1, x * 0.5, x - mean): the unary kernel with c in its push block (x - c as
 * x + -c, the same result), so one buffer is read, not two. The binary kernel's dependent
 * dispatch cost 2.47 us on the H200 against 2.24 for the unary one (bench_floor, the
 * chained Add and Relu, 2026-11-25). False: not such a node. */
static bool scalar_operand(const graph_value *values, const graph_node *node, vkml_dtype dtype,
                           int *x, float *c, vk_kernel_id *kernel)
{
    const eltwise_params *p = node->params;
    if ((p->op != ELT_ADD && p->op != ELT_SUB && p->op != ELT_MUL) ||
        (dtype != VKML_DTYPE_FLOAT && dtype != VKML_DTYPE_FLOAT16) || node->n_inputs != 2)
        return false;
    const graph_value *y = &values[node->outputs[0]];
    for (int side = 1; side >= (p->op == ELT_SUB ? 1 : 0); side--) {
        const graph_value *cv = &values[node->inputs[side]], *xv = &values[node->inputs[1 - side]];
        if (cv->kind != GRAPH_VALUE_CONSTANT || !cv->data || cv->dtype != dtype ||
            vkml_tensor_element_count(cv->rank, cv->dims) != 1 || xv->dtype != dtype ||
            xv->rank != y->rank || memcmp(xv->dims, y->dims, sizeof(int64_t) * (size_t)y->rank))
            continue;
        float v = dtype == VKML_DTYPE_FLOAT ? *(const float *)cv->data
                                            : vkml_half_to_float(*(const uint16_t *)cv->data);
        *x = node->inputs[1 - side];
        *c = p->op == ELT_SUB ? -v : v;
        *kernel = p->op == ELT_MUL ? VK_KERNEL_U_MUL_SCALAR : VK_KERNEL_U_ADD_SCALAR;
        return vk_kernel_variant(*kernel, (int)dtype) >= 0;
    }
    return false;
}

/* The dense form of a binary kernel (DENSE_OPERANDS in eltwise_binary.comp) for a layout
 * where a and b are both dense in y's shape (one merged dim, unit strides), or the kernel
 * itself. The broadcasting kernel's dependent dispatch cost 2.58 us on the H200 against
 * 2.28 for the unary one (bench_floor's raw loop, 2026-11-28); see docs/performance.md for
 * what the dense form costs. */
static vk_kernel_id dense_kernel(vk_kernel_id kernel, vkml_dtype dtype, const eltwise_layout *l)
{
    vk_kernel_id dense = kernel == VK_KERNEL_B_ADD   ? VK_KERNEL_B_ADD_DENSE
                         : kernel == VK_KERNEL_B_SUB ? VK_KERNEL_B_SUB_DENSE
                         : kernel == VK_KERNEL_B_MUL ? VK_KERNEL_B_MUL_DENSE
                                                     : kernel;
    if (dense == kernel || l->rank != 1 || l->strides[0][0] != 1 || l->strides[1][0] != 1 ||
        vk_kernel_variant(dense, (int)dtype) < 0)
        return kernel;
    return dense;
}

VKML_GPU_DECL(gpu_eltwise)
{
    const eltwise_params *p = node->params;
    if (node->n_inputs < inputs_needed(p) || node->n_outputs < 1 || node->outputs[0] < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s needs %d inputs, has %d", node->op_type,
                         inputs_needed(p), node->n_inputs);
    for (int i = 0; i < inputs_needed(p); i++)
        if (node->inputs[i] < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s input %d is missing", node->op_type,
                             i);
    vkml_dtype dtype;
    vk_kernel_id kernel = pick_kernel(values, node, &dtype);
    /* float32 fmod exact in double where the device has it (eltwise_binary.comp) */
    if (kernel == VK_KERNEL_B_FMOD && dtype == VKML_DTYPE_FLOAT && vk_rec_caps(rec)->float64 &&
        vk_kernel_variant(VK_KERNEL_B_FMOD_EXACT, (int)dtype) >= 0)
        kernel = VK_KERNEL_B_FMOD_EXACT;
    const graph_value *y = &values[node->outputs[0]];
    size_t count = vkml_tensor_element_count(y->rank, y->dims);
    if (count == 0)
        return VKML_OK;
    unary_push up = {
        .count = vk_u32((int64_t)count), .alpha = p->alpha, .beta = p->beta, .gamma = p->gamma};
    if (p->op == ELT_IS_INF)
        up.alpha = p->detect_pos, up.beta = p->detect_neg;
    if (p->op == ELT_DROPOUT) {
        vkml_status st = gpu_copy(rec, values, node, err);
        if (st != VKML_OK || node->n_outputs < 2 || node->outputs[1] < 0)
            return st;
        return rec_unary(rec, VK_KERNEL_U_TRUE, dtype, node->inputs[0], node->outputs[1], &up, err);
    }
    if (p->kind == ELT_VARIADIC)
        return rec_variadic(rec, values, node, kernel, dtype, err);
    if (kernel == VK_KERNEL_T_CLIP || kernel == VK_KERNEL_T_WHERE)
        return rec_ternary(rec, values, node, kernel, dtype, err);
    int x;
    vk_kernel_id scalar_kernel;
    if (scalar_operand(values, node, dtype, &x, &up.alpha, &scalar_kernel))
        return rec_unary(rec, scalar_kernel, dtype, x, node->outputs[0], &up, err);
    if (p->kind == ELT_BINARY || p->kind == ELT_COMPARE || p->op == ELT_POW) {
        int64_t strides[2][VKML_MAX_RANK];
        eltwise_layout l;
        eltwise_layout_of(values, node, 0, 2, strides, &l);
        return rec_binary(rec, dense_kernel(kernel, dtype, &l), dtype, node->inputs[0],
                          node->inputs[1], node->outputs[0], &l, err);
    }
    return rec_unary(rec, kernel, dtype, node->inputs[0], node->outputs[0], &up, err);
}
