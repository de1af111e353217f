/* Vulkan lowerings of QuantizeLinear and DequantizeLinear (shaders/quant.comp): float or
 * float16 values and scales, the zero point and the quantized side of the variant's
 * integer type. */
#include "ops/quant.h"
#include "vulkan/ops_qprod.h"

#include <stddef.h>
#include <string.h>

static bool is_quantize(const graph_node *node)
{
    return node->op->id == OP_ID_QuantizeLinear;
}

VKML_GPU_SUPPORTS_DECL(gpu_quant_supports)
{
    vkml_error err;
    quant_layout l;
    if (quant_layout_parse(values, node, &l, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    const graph_value *x = &values[node->inputs[0]], *s = &values[node->inputs[1]];
    const graph_value *f = is_quantize(node) ? x : &values[node->outputs[0]];
    bool same_float =
        f->dtype == s->dtype && (f->dtype == VKML_DTYPE_FLOAT || f->dtype == VKML_DTYPE_FLOAT16);
    if (!same_float)
        return vk_unsupported(why, why_size,
                              "%s: the Vulkan kernels take float or float16 values with scales "
                              "of the same type, not %s and %s",
                              node->op_type, vkml_dtype_name(f->dtype), vkml_dtype_name(s->dtype));
    const quant_params *qp = node->params;
    if (is_quantize(node) && qp->precision && qp->precision != s->dtype)
        return vk_unsupported(why, why_size,
                              "QuantizeLinear dividing in %s with %s scales: the Vulkan kernels "
                              "divide in the scale's type",
                              vkml_dtype_name(qp->precision), vkml_dtype_name(s->dtype));
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

static float int_limit(vkml_dtype t, bool high)
{
    switch (t) {
    case VKML_DTYPE_INT8: return high ? 127.0f : -128.0f;
    case VKML_DTYPE_UINT8: return high ? 255.0f : 0.0f;
    case VKML_DTYPE_INT16: return high ? 32767.0f : -32768.0f;
    case VKML_DTYPE_UINT16: return high ? 65535.0f : 0.0f;
    default: return 0.0f;
    }
}

VKML_GPU_DECL(gpu_quant)
{
    quant_layout l;
    vkml_status st = quant_layout_parse(values, node, &l, err);
    if (st != VKML_OK)
        return st;
    bool quantize = is_quantize(node);
    bool has_zero = node->n_inputs > 2 && node->inputs[2] >= 0;
    vkml_dtype t = quantize ? values[node->outputs[0]].dtype : values[node->inputs[0]].dtype;
    quant_push pc = {
        .count = vk_u32(l.count),
        .inner = vk_u32(l.inner),
        .axis_dim = vk_u32(l.axis_dim),
        .block = vk_u32(l.block),
        .outer_stride = vk_u32(l.outer_stride),
        .axis_stride = vk_u32(l.axis_stride),
        .inner_stride = vk_u32(l.inner_stride),
        .has_zero = has_zero,
        .lo = int_limit(t, false),
        .hi = int_limit(t, true),
    };
    /* Without a zero point, binding 2 gets the quantized tensor: never read. */
    int quantized = quantize ? node->outputs[0] : node->inputs[0];
    int bind[] = {node->inputs[0], node->inputs[1], has_zero ? node->inputs[2] : quantized,
                  node->outputs[0]};
    bool half = values[node->inputs[1]].dtype == VKML_DTYPE_FLOAT16;
    vk_kernel_id k = quantize ? (half ? VK_KERNEL_QUANTIZE_HALF : VK_KERNEL_QUANTIZE)
                              : (half ? VK_KERNEL_DEQUANTIZE_HALF : VK_KERNEL_DEQUANTIZE);
    return vk_rec_kernel_1d(rec, k, t, bind, &pc, sizeof(pc), (uint64_t)l.count, err);
}

/* MatMulInteger and QLinearMatMul (ops_qprod.h): per-tensor zero points and scales that
 * are constants go in the push block; A's zero point may also be a runtime scalar (dynamic
 * quantization), B's zero points and scales per column or at run time, bound as buffers.
 * Anything else runs on the CPU. */

static bool is_scalar(const graph_value *v)
{
    return vkml_tensor_element_count(v->rank, v->dims) == 1;
}

/* Absent, or a constant scalar (runtime_ok: or any scalar). */
static bool push_ready(const graph_value *v, bool runtime_ok, const char *what, char *why,
                       size_t why_size)
{
    if (!v || (is_scalar(v) && (v->data || runtime_ok)))
        return true;
    return vk_unsupported(why, why_size,
                          "%s '%s' is not a constant scalar: the Vulkan kernel takes those", what,
                          v->name);
}

uint32_t vk_qprod_vec_mode(const graph_value *v)
{
    if (!v)
        return 0;
    int64_t n = (int64_t)vkml_tensor_element_count(v->rank, v->dims);
    if (v->data) {
        bool uniform = true;
        for (int64_t i = 1; i < n && uniform; i++)
            uniform = quant_const_at(v, i) == quant_const_at(v, 0);
        if (uniform)
            return 0;
    }
    return n == 1 ? 1 : 2;
}

/* Split-K of the integer products: slices of at least QPROD_SLICE_STEPS steps of K
 * (QPROD_BK each), at most QPROD_MAX_SPLITS, enough for QPROD_FEW_BLOCKS workgroups. */
#define QPROD_BLOCK 64
#define QPROD_SMALL_BLOCK 32
#define QPROD_BK 32
#define QPROD_SLICE_STEPS 4
#define QPROD_MAX_SPLITS 16

#define QPROD_FEW_BLOCKS 256
#define QPROD_DIRECT_ROWS 16

/* Its kernels and grid: a conv whose groups have fewer than QPROD_DIRECT_ROWS output
 * channels runs qconv_direct.comp (an invocation an output: `direct`); any other product
 * qmatmul_coop.comp where the device has int8 cooperative matrices, else qmatmul.comp's 64 x
 * 64 blocks, or 32 x 32 where those would be fewer than QPROD_FEW_BLOCKS workgroups;
 * split-K (splits > 1: `part` then `finish`) for qmatmul_coop.comp's products of fewer
 * blocks, or as gpu_caps.splitk_force says. */
typedef struct qprod_plan {
    vk_kernel_id kernel, part, finish;
    bool direct;
    uint32_t groups[3]; /* of the product (not direct), or of its first pass (z: batch x
                         * slice) */
    uint64_t outputs;   /* direct: its invocations */
    uint32_t splits, k_slice;
    uint64_t scratch_bytes; /* the slices' int32 parts */
} qprod_plan;

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

bool vk_qprod_fits(const struct gpu_caps *caps, const vk_qprod *q)
{
    return ceil_div(q->n, QPROD_SMALL_BLOCK) <= caps->max_workgroup_count[0] &&
           ceil_div(q->m, QPROD_SMALL_BLOCK) <= caps->max_workgroup_count[1] &&
           q->batches <= caps->max_workgroup_count[2];
}

static void qprod_pick(const struct gpu_caps *caps, const vk_qprod *q, qprod_plan *plan)
{
    /* [conv][qlinear] for the product and finish, [conv] for the first pass; [form]: coop,
     * blocks of 64, of 32 */
    static const vk_kernel_id product[2][2][3] = {
        {{VK_KERNEL_MATMUL_INTEGER_COOP, VK_KERNEL_MATMUL_INTEGER, VK_KERNEL_MATMUL_INTEGER_32},
         {VK_KERNEL_QLINEAR_MATMUL_COOP, VK_KERNEL_QLINEAR_MATMUL, VK_KERNEL_QLINEAR_MATMUL_32}},
        {{VK_KERNEL_CONV_INTEGER_COOP, VK_KERNEL_CONV_INTEGER, VK_KERNEL_CONV_INTEGER_32},
         {VK_KERNEL_QLINEAR_CONV_COOP, VK_KERNEL_QLINEAR_CONV, VK_KERNEL_QLINEAR_CONV_32}}};
    static const vk_kernel_id part[2][3] = {
        {VK_KERNEL_MATMUL_INTEGER_COOP_PART, VK_KERNEL_MATMUL_INTEGER_PART,
         VK_KERNEL_MATMUL_INTEGER_PART_32},
        {VK_KERNEL_CONV_INTEGER_COOP_PART, VK_KERNEL_CONV_INTEGER_PART,
         VK_KERNEL_CONV_INTEGER_PART_32}};
    static const vk_kernel_id finish[2][2] = {
        {VK_KERNEL_MATMUL_INTEGER_FINISH, VK_KERNEL_QLINEAR_MATMUL_FINISH},
        {VK_KERNEL_CONV_INTEGER_FINISH, VK_KERNEL_QLINEAR_CONV_FINISH}};
    if (q->conv && q->m < QPROD_DIRECT_ROWS && caps->splitk_force <= 1) {
        *plan = (qprod_plan){
            .kernel = q->qlinear ? VK_KERNEL_QLINEAR_CONV_DIRECT : VK_KERNEL_CONV_INTEGER_DIRECT,
            .direct = true,
            .outputs = (uint64_t)q->batches * (uint64_t)q->m * (uint64_t)q->n,
            .splits = 1,
            .k_slice = vk_u32(q->k),
        };
        return;
    }
    bool coop = caps->coop_int8;
    int64_t blocks = ceil_div(q->m, QPROD_BLOCK) * ceil_div(q->n, QPROD_BLOCK) * q->batches;
    bool few = !coop && blocks < QPROD_FEW_BLOCKS;
    int form = coop ? 0 : few ? 2 : 1;
    int64_t block = few ? QPROD_SMALL_BLOCK : QPROD_BLOCK;
    blocks = ceil_div(q->m, block) * ceil_div(q->n, block) * q->batches;
    int64_t steps = ceil_div(q->k, QPROD_BK), splits = 1;
    if (caps->splitk_force > 1)
        splits = caps->splitk_force;
    else if (caps->splitk_force == 0 && coop && blocks < QPROD_FEW_BLOCKS)
        splits = QPROD_FEW_BLOCKS / blocks;
    if (caps->splitk_force <= 1) {
        if (splits > steps / QPROD_SLICE_STEPS)
            splits = steps / QPROD_SLICE_STEPS;
        if (splits > QPROD_MAX_SPLITS)
            splits = QPROD_MAX_SPLITS;
    }
    if (steps < 2)
        splits = 1;
    int64_t k_slice = splits > 1 ? ceil_div(steps, splits) * QPROD_BK : q->k;
    if (splits > 1)
        splits = ceil_div(q->k, k_slice); /* none empty */
    uint64_t scratch =
        (uint64_t)splits * (uint64_t)q->batches * (uint64_t)q->m * (uint64_t)q->n * 4;
    if (splits <= 1 || scratch > caps->max_storage_buffer_range || scratch / 4 > UINT32_MAX ||
        (uint64_t)splits * (uint64_t)q->batches > caps->max_workgroup_count[2]) {
        splits = 1;
        k_slice = q->k;
        scratch = 0;
    }
    *plan = (qprod_plan){
        .kernel = product[q->conv][q->qlinear][form],
        .part = part[q->conv][form],
        .finish = finish[q->conv][q->qlinear],
        .groups = {vk_u32(ceil_div(q->n, block)), vk_u32(ceil_div(q->m, block)),
                   vk_u32(q->batches * splits)},
        .splits = vk_u32(splits),
        .k_slice = vk_u32(k_slice > 0 ? k_slice : 1),
        .scratch_bytes = scratch,
    };
}

vkml_status vk_rec_qprod(gpu_recorder *rec, const vk_qprod *q, vkml_dtype dtype, const int *bind,
                         int n_bind, const void *push, uint32_t push_size, size_t split_at,
                         vkml_error *err)
{
    qprod_plan pl, *plan = &pl;
    qprod_pick(vk_rec_caps(rec), q, plan);
    uint32_t words[VK_PUSH_CONSTANT_MAX / 4];
    if (push_size > sizeof(words) || split_at + 2 * sizeof(uint32_t) > push_size)
        return vkml_fail(err, VKML_ERROR_DEVICE, "integer product: a push block of %u bytes",
                         push_size);
    memcpy(words, push, push_size);
    const uint32_t split[2] = {plan->splits, plan->k_slice};
    memcpy((char *)words + split_at, split, sizeof(split));
    push = words;
    if (plan->direct)
        return vk_rec_kernel_1d(rec, plan->kernel, dtype, bind, push, push_size, plan->outputs,
                                err);
    if (plan->splits <= 1)
        return vk_rec_kernel(rec, plan->kernel, dtype, bind, push, push_size, plan->groups, err);
    int scratch, pass[VK_MAX_BINDINGS];
    vkml_status st = vk_rec_scratch(rec, VK_SCRATCH_SPLITK, plan->scratch_bytes, &scratch, err);
    if (st != VKML_OK)
        return st;
    for (int i = 0; i < n_bind; i++)
        pass[i] = i == n_bind - 1 ? scratch : bind[i];
    st = vk_rec_kernel(rec, plan->part, dtype, pass, push, push_size, plan->groups, err);
    if (st != VKML_OK)
        return st;
    for (int i = 0; i < n_bind; i++)
        pass[i] = i == 0 ? scratch : bind[i];
    return vk_rec_kernel_1d(rec, plan->finish, dtype, pass, push, push_size,
                            plan->scratch_bytes / 4 / plan->splits, err);
}

VKML_GPU_SUPPORTS_DECL(gpu_qmatmul_supports)
{
    vkml_error err;
    qprod_params p;
    if (qprod_params_parse(values, node, &p, &err) != VKML_OK)
        return vk_parse_failed(&err, why, why_size);
    const qprod_inputs *in = p.in;
    bool qlinear = in->y_scale >= 0;
    if (p.mm.batch_rank > 4)
        return vk_unsupported(why, why_size, "%s with %d batch dims: the kernel takes 4",
                              node->op_type, p.mm.batch_rank);
    int64_t batches = p.mm.m && p.mm.n ? p.y_count / (p.mm.m * p.mm.n) : 0;
    vk_qprod q = {.m = p.mm.m, .n = p.mm.n, .k = p.mm.k, .batches = batches};
    if (!vk_qprod_fits(caps, &q))
        return vk_unsupported(
            why, why_size, "%s of %lld x %lld in %lld batches: more blocks than the device's grid",
            node->op_type, (long long)p.mm.m, (long long)p.mm.n, (long long)batches);
    if (qlinear && !caps->float64)
        return vk_unsupported(why, why_size, "%s requantizes in double: no shaderFloat64",
                              node->op_type);
    if (caps->max_bindings < VK_MAX_BINDINGS)
        return vk_unsupported(why, why_size,
                              "%s: the kernels bind %d buffers, the device allows %u",
                              node->op_type, VK_MAX_BINDINGS, caps->max_bindings);
    /* B's zero points and scales: per tensor or per column, constants or at run time */
    const graph_value *bs = vk_qprod_input(values, node, in->b_scale);
    const graph_value *as = vk_qprod_input(values, node, in->a_scale);
    if (qlinear && vk_qprod_vec_mode(bs) != 0 &&
        (bs->dtype != VKML_DTYPE_FLOAT || as->dtype != VKML_DTYPE_FLOAT))
        return vk_unsupported(why, why_size,
                              "%s with %s scales per column or at run time: the Vulkan kernels "
                              "read float",
                              node->op_type, vkml_dtype_name(bs->dtype));
    const int consts[] = {in->a_scale, in->y_scale, in->y_zero};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(consts); i++)
        if (!push_ready(vk_qprod_input(values, node, consts[i]), false, "scale or zero point", why,
                        why_size))
            return false;
    return push_ready(vk_qprod_input(values, node, in->a_zero), true, "zero point", why,
                      why_size) &&
           vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_qmatmul)
{
    qprod_params p;
    vkml_status st = qprod_params_parse(values, node, &p, err);
    if (st != VKML_OK)
        return st;
    const qprod_inputs *in = p.in;
    bool qlinear = in->y_scale >= 0;
    const graph_value *az = vk_qprod_input(values, node, in->a_zero);
    const graph_value *b = vk_qprod_input(values, node, in->b);
    qmatmul_push pc = {
        .m = vk_u32(p.mm.m),
        .n = vk_u32(p.mm.n),
        .k = vk_u32(p.mm.k),
        .batch_rank = (uint32_t)p.mm.batch_rank,
        .a_zero = az && az->data ? vk_qprod_const_bits(az) : 0,
        .a_zero_in_buffer = az && !az->data,
        .b_zero = vk_qprod_const_bits(vk_qprod_input(values, node, in->b_zero)),
        .b_signed = b->dtype == VKML_DTYPE_INT8,
        .b_zero_in_buffer = vk_qprod_vec_mode(vk_qprod_input(values, node, in->b_zero)),
    };
    int a = node->inputs[in->a];
    /* bindings 2-4 that the node does not use get A */
    int bind[] = {a,
                  node->inputs[in->b],
                  pc.a_zero_in_buffer ? node->inputs[in->a_zero] : a,
                  a,
                  pc.b_zero_in_buffer ? node->inputs[in->b_zero] : a,
                  node->outputs[0]};
    for (int d = 0; d < p.mm.batch_rank; d++) {
        pc.batch_dims[d] = vk_u32(p.mm.batch_dims[d]);
        pc.a_batch_strides[d] = vk_u32(p.mm.a_batch_strides[d]);
        pc.b_batch_strides[d] = vk_u32(p.mm.b_batch_strides[d]);
    }
    if (qlinear) {
        const graph_value *sa = vk_qprod_input(values, node, in->a_scale);
        const graph_value *sb = vk_qprod_input(values, node, in->b_scale);
        pc.b_scale_in_buffer = vk_qprod_vec_mode(sb);
        pc.a_scale = (float)quant_const_at(sa, 0);
        pc.y_scale = (float)quant_const_at(vk_qprod_input(values, node, in->y_scale), 0);
        if (pc.b_scale_in_buffer)
            bind[3] = node->inputs[in->b_scale];
        else
            pc.multiplier = (float)qprod_multiplier(sa->dtype, pc.a_scale,
                                                    (float)quant_const_at(sb, 0), pc.y_scale);
        pc.y_zero = vk_qprod_const_bits(vk_qprod_input(values, node, in->y_zero));
        pc.y_lo = int_limit(p.y_dtype, false);
        pc.y_hi = int_limit(p.y_dtype, true);
    }
    vk_qprod q = {.qlinear = qlinear,
                  .m = p.mm.m,
                  .n = p.mm.n,
                  .k = p.mm.k,
                  .batches = p.mm.m && p.mm.n ? p.y_count / (p.mm.m * p.mm.n) : 0};
    return vk_rec_qprod(rec, &q, values[a].dtype, bind, VKML_ARRAY_SIZE(bind), &pc, sizeof(pc),
                        offsetof(qmatmul_push, splits), err);
}

/* DynamicQuantizeLinear: the range kernel writes outputs 1 (scale) and 2 (zero point),
 * then the uint8 QuantizeLinear kernel reads them (the recorder puts a barrier between). */
VKML_GPU_SUPPORTS_DECL(gpu_dynamic_quant_supports)
{
    for (int i = 0; i < 3; i++)
        if (i >= node->n_outputs || node->outputs[i] < 0)
            return vk_unsupported(why, why_size, "DynamicQuantizeLinear without output %d", i);
    return vk_check_tensors(values, node, caps, true, why, why_size);
}

VKML_GPU_DECL(gpu_dynamic_quant)
{
    const graph_value *x = &values[node->inputs[0]];
    int64_t count = (int64_t)vkml_tensor_element_count(x->rank, x->dims);
    copy_push range = {.count = vk_u32(count)};
    int range_bind[] = {node->inputs[0], node->outputs[1], node->outputs[2]};
    vk_dispatch d = {.kernel = VK_KERNEL_DYNQUANT_RANGE,
                     .dtype = VKML_DTYPE_FLOAT,
                     .bind = {range_bind[0], range_bind[1], range_bind[2], -1},
                     .write_mask = 6u,
                     .push = &range,
                     .push_size = sizeof(range),
                     .groups = {1, 1, 1}};
    vkml_status st = vk_rec_dispatch(rec, &d, err);
    if (st != VKML_OK)
        return st;
    quant_push pc = {.count = vk_u32(count),
                     .inner = 1,
                     .axis_dim = 1,
                     .block = 1,
                     .has_zero = 1,
                     .lo = 0.0f,
                     .hi = 255.0f};
    int bind[] = {node->inputs[0], node->outputs[1], node->outputs[2], node->outputs[0]};
    return vk_rec_kernel_1d(rec, VK_KERNEL_QUANTIZE, VKML_DTYPE_UINT8, bind, &pc, sizeof(pc),
                            (uint64_t)count, err);
}
