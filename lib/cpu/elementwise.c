/* Elementwise CPU kernels: one broadcasting loop for every elementwise op. Each input is
 * loaded a block at a time from its dtype into the op's computation class (eltwise_cpu.h),
 * the op runs on the block (eltwise_math.c), and the result is stored to the output's
 * dtype. Variadic ops fold pairwise through the output. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* as eltwise_math.c */
#endif
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"
#include "cpu/eltwise_cpu.h"

#include <math.h>
#include <string.h>

/* Saturating float -> integer conversions (NaN gives 0): out-of-range casts are
 * undefined in C. */
#define DEFINE_SAT(T, MIN, MAX)                                                                    \
    static inline T sat_##T(double x)                                                              \
    {                                                                                              \
        return x != x ? 0 : x <= (double)(MIN) ? (MIN) : x >= (double)(MAX) ? (MAX) : (T)x;        \
    }
DEFINE_SAT(int8_t, INT8_MIN, INT8_MAX)
DEFINE_SAT(int16_t, INT16_MIN, INT16_MAX)
DEFINE_SAT(int32_t, INT32_MIN, INT32_MAX)
DEFINE_SAT(int64_t, INT64_MIN, INT64_MAX)
DEFINE_SAT(uint8_t, 0, UINT8_MAX)
DEFINE_SAT(uint16_t, 0, UINT16_MAX)
DEFINE_SAT(uint32_t, 0, UINT32_MAX)
DEFINE_SAT(uint64_t, 0, UINT64_MAX)

/* A computation-class value converted to an integer type: saturating from floats,
 * wrapping from integers. */
#define TO_INT(T, v) _Generic((v), float : sat_##T, double : sat_##T, default : wrap_##T)(v)
#define DEFINE_WRAP(T)                                                                             \
    static inline T wrap_##T(uint64_t v)                                                           \
    {                                                                                              \
        return (T)v;                                                                               \
    }
DEFINE_WRAP(int8_t)
DEFINE_WRAP(int16_t)
DEFINE_WRAP(int32_t)
DEFINE_WRAP(int64_t)
DEFINE_WRAP(uint8_t)
DEFINE_WRAP(uint16_t)
DEFINE_WRAP(uint32_t)
DEFINE_WRAP(uint64_t)

/* Element i of storage dtype (T) as a C value, and back. */
#define LD_PLAIN(T, p, i) (((const T *)(p))[i])
#define LD_F16(T, p, i) vkml_half_to_float(((const uint16_t *)(p))[i])
#define LD_BF16(T, p, i) vkml_bfloat16_to_float(((const uint16_t *)(p))[i])
#define ST_F32(T, v) ((float)(v))
#define ST_F64(T, v) ((double)(v))
#define ST_INT(T, v) TO_INT(T, v)
#define ST_F16(T, v) vkml_half_from_float((float)(v))
#define ST_BF16(T, v) vkml_bfloat16_from_float((float)(v))
#define ST_BOOL(T, v) ((uint8_t)((v) != 0))

/* X(dtype, storage type, loader, storer) for every dtype the kernels take. */
#define ELT_DTYPES(X)                                                                              \
    X(FLOAT, float, LD_PLAIN, ST_F32)                                                              \
    X(DOUBLE, double, LD_PLAIN, ST_F64)                                                            \
    X(FLOAT16, uint16_t, LD_F16, ST_F16)                                                           \
    X(BFLOAT16, uint16_t, LD_BF16, ST_BF16)                                                        \
    X(INT8, int8_t, LD_PLAIN, ST_INT)                                                              \
    X(INT16, int16_t, LD_PLAIN, ST_INT)                                                            \
    X(INT32, int32_t, LD_PLAIN, ST_INT)                                                            \
    X(INT64, int64_t, LD_PLAIN, ST_INT)                                                            \
    X(UINT8, uint8_t, LD_PLAIN, ST_INT)                                                            \
    X(UINT16, uint16_t, LD_PLAIN, ST_INT)                                                          \
    X(UINT32, uint32_t, LD_PLAIN, ST_INT)                                                          \
    X(UINT64, uint64_t, LD_PLAIN, ST_INT)                                                          \
    X(BOOL, uint8_t, LD_PLAIN, ST_BOOL)

/* Loads n elements of src from element `off`, `stride` apart, into the class array dst. */
typedef void (*elt_load_fn)(const void *src, int64_t off, int64_t stride, void *dst, int n);
/* Stores n class values to dst from element `off`, densely. */
typedef void (*elt_store_fn)(const void *src, void *dst, int64_t off, int n);

#define CLASS_VALUE_F32(v) ((float)(v))
#define CLASS_VALUE_F64(v) ((double)(v))
#define CLASS_VALUE_S64(v) TO_INT(int64_t, v)
#define CLASS_VALUE_U64(v) TO_INT(uint64_t, v)

#define DEFINE_LOAD(D, T, LD, CLS, CT)                                                             \
    static void load_##D##_##CLS(const void *src, int64_t off, int64_t stride, void *dst, int n)   \
    {                                                                                              \
        CT *d = dst;                                                                               \
        if (stride == 1) { /* dense, and a plain copy for the class's own type */                  \
            const T *run = (const T *)src + off;                                                   \
            for (int j = 0; j < n; j++)                                                            \
                d[j] = CLASS_VALUE_##CLS(LD(T, run, j));                                           \
        } else if (stride == 0) { /* a broadcast */                                                \
            CT v = CLASS_VALUE_##CLS(LD(T, src, off));                                             \
            for (int j = 0; j < n; j++)                                                            \
                d[j] = v;                                                                          \
        } else {                                                                                   \
            for (int j = 0; j < n; j++)                                                            \
                d[j] = CLASS_VALUE_##CLS(LD(T, src, off + j * stride));                            \
        }                                                                                          \
    }
#define DEFINE_STORE(D, T, ST, CLS, CT)                                                            \
    static void store_##CLS##_##D(const void *src, void *dst, int64_t off, int n)                  \
    {                                                                                              \
        const CT *s = src;                                                                         \
        T *d = (T *)dst + off;                                                                     \
        for (int j = 0; j < n; j++)                                                                \
            d[j] = ST(T, s[j]);                                                                    \
    }
#define DEFINE_DTYPE_IO(D, T, LD, ST)                                                              \
    DEFINE_LOAD(D, T, LD, F32, float)                                                              \
    DEFINE_LOAD(D, T, LD, F64, double)                                                             \
    DEFINE_LOAD(D, T, LD, S64, int64_t)                                                            \
    DEFINE_LOAD(D, T, LD, U64, uint64_t)                                                           \
    DEFINE_STORE(D, T, ST, F32, float)                                                             \
    DEFINE_STORE(D, T, ST, F64, double)                                                            \
    DEFINE_STORE(D, T, ST, S64, int64_t)                                                           \
    DEFINE_STORE(D, T, ST, U64, uint64_t)
ELT_DTYPES(DEFINE_DTYPE_IO)

typedef struct elt_io {
    elt_class cls; /* the class this dtype computes in */
    elt_load_fn load[4];
    elt_store_fn store[4];
} elt_io;

static const elt_io elt_ios[VKML_DTYPE_BFLOAT16 + 1] = {
#define IO_ROW(D, T, LD, ST)                                                                       \
    [VKML_DTYPE_##D] = {0,                                                                         \
                        {load_##D##_F32, load_##D##_F64, load_##D##_S64, load_##D##_U64},          \
                        {store_F32_##D, store_F64_##D, store_S64_##D, store_U64_##D}},
    ELT_DTYPES(IO_ROW)
#undef IO_ROW
};

static const elt_io *io_of(vkml_dtype dtype)
{
    return dtype > 0 && dtype <= VKML_DTYPE_BFLOAT16 && elt_ios[dtype].load[0] ? &elt_ios[dtype]
                                                                               : NULL;
}

static elt_class class_of(vkml_dtype dtype)
{
    switch (dtype) {
    case VKML_DTYPE_FLOAT:
    case VKML_DTYPE_FLOAT16:
    case VKML_DTYPE_BFLOAT16: return ELT_CLASS_F32;
    case VKML_DTYPE_DOUBLE: return ELT_CLASS_F64;
    case VKML_DTYPE_INT8:
    case VKML_DTYPE_INT16:
    case VKML_DTYPE_INT32:
    case VKML_DTYPE_INT64: return ELT_CLASS_S64;
    default: return ELT_CLASS_U64;
    }
}

/* Most inputs of one pass: Where's three, Clip's x, min and max. */
#define ELT_PASS_INPUTS 3

/* One pass: y = step(inputs), every input read through the layout's strides. */
typedef struct elt_pass {
    elt_step step;
    elt_class cls;
    eltwise_layout layout;
    int64_t strides[ELT_PASS_INPUTS][VKML_MAX_RANK];
    const void *in[ELT_PASS_INPUTS];
    elt_load_fn load[ELT_PASS_INPUTS];
    /* Input k (the output) is of the class's own type (float for F32): its dense runs are
     * read (written) in place, without the copy through the block. */
    bool native[ELT_PASS_INPUTS], native_y;
    void *y;
    elt_store_fn store;
} elt_pass;

/* The dtype each class computes in, and its size. */
static bool class_native(elt_class cls, vkml_dtype t)
{
    switch (cls) {
    case ELT_CLASS_F32: return t == VKML_DTYPE_FLOAT;
    case ELT_CLASS_F64: return t == VKML_DTYPE_DOUBLE;
    case ELT_CLASS_S64: return t == VKML_DTYPE_INT64;
    case ELT_CLASS_U64: return t == VKML_DTYPE_UINT64;
    }
    return false;
}

static size_t class_size(elt_class cls)
{
    return cls == ELT_CLASS_F32 ? sizeof(float) : sizeof(uint64_t);
}

/* Rows [begin, end) of the layout's innermost dim, a block at a time. */
static void pass_rows(void *ctx, int64_t begin, int64_t end)
{
    const elt_pass *ps = ctx;
    const eltwise_layout *l = &ps->layout;
    int n_in = ps->step.n_inputs, last = l->rank - 1;
    int64_t inner = l->rank ? l->dims[last] : 1;
    size_t size = class_size(ps->cls);
    uint64_t scratch[ELT_PASS_INPUTS + 1][ELT_BLOCK];
    void *x[ELT_PASS_INPUTS] = {scratch[1], scratch[2], scratch[3]};
    for (int64_t r = begin; r < end; r++) {
        int64_t rest = r, off[ELT_PASS_INPUTS] = {0};
        for (int d = last - 1; d >= 0; d--) {
            int64_t i = rest % l->dims[d];
            rest /= l->dims[d];
            for (int k = 0; k < n_in; k++)
                off[k] += i * ps->strides[k][d];
        }
        for (int64_t j = 0; j < inner; j += ELT_BLOCK) {
            int n = inner - j < ELT_BLOCK ? (int)(inner - j) : ELT_BLOCK;
            void *xs[ELT_PASS_INPUTS] = {NULL};
            for (int k = 0; k < n_in; k++) {
                int64_t s = l->rank ? ps->strides[k][last] : 0;
                if (!ps->load[k])
                    continue; /* an omitted optional input: NULL for the op */
                if (ps->native[k] && s == 1) {
                    xs[k] = (void *)((const char *)ps->in[k] + (size_t)(off[k] + j) * size);
                    continue;
                }
                ps->load[k](ps->in[k], off[k] + j * s, s, x[k], n);
                xs[k] = x[k];
            }
            if (ps->native_y) {
                elt_compute(ps->cls, &ps->step, xs, (char *)ps->y + (size_t)(r * inner + j) * size,
                            n);
                continue;
            }
            elt_compute(ps->cls, &ps->step, xs, scratch[0], n);
            ps->store(scratch[0], ps->y, r * inner + j, n);
        }
    }
}

/* Binds input k of a pass to value v of the node (data `data`); v < 0 (absent) is not
 * allowed here. */
static void pass_input(elt_pass *ps, int k, const graph_value *v, const void *data)
{
    ps->in[k] = data;
    ps->load[k] = io_of(v->dtype)->load[ps->cls];
    ps->native[k] = class_native(ps->cls, v->dtype);
}

static void pass_run(elt_pass *ps, double cost)
{
    const eltwise_layout *l = &ps->layout;
    int64_t inner = l->rank ? l->dims[l->rank - 1] : 1;
    if (l->count == 0)
        return;
    sched_parallel_for((int64_t)l->count / inner, cost * (double)inner, pass_rows, ps);
}

/* Rough flops per element, for sched_parallel_for. */
static double op_cost(eltwise_op op)
{
    switch (op) {
    case ELT_ABS:
    case ELT_NEG:
    case ELT_ADD:
    case ELT_SUB:
    case ELT_MUL:
    case ELT_RELU:
    case ELT_MIN:
    case ELT_MAX:
    case ELT_SUM:
    case ELT_CAST:
    case ELT_CAST_LIKE:
    case ELT_WHERE: return 2;
    default: return 20;
    }
}

/* The pass reads inputs first..first+n-1 of the node. */
static void pass_layout(elt_pass *ps, const op_cpu_args *args, int first, int n)
{
    eltwise_layout_of(args->values, args->node, first, n, ps->strides, &ps->layout);
}

/* Min, Max, Sum, Mean: y = x0 op x1, then y = y op xk, then (Mean) y /= n. */
static void run_variadic(elt_pass *ps, const op_cpu_args *args, double cost)
{
    const graph_node *node = args->node;
    eltwise_op op = ps->step.op;
    ps->step.op = node->n_inputs == 1 ? ELT_CAST : op == ELT_MEAN ? ELT_SUM : op;
    ps->step.n_inputs = node->n_inputs == 1 ? 1 : 2;
    pass_layout(ps, args, 0, ps->step.n_inputs);
    for (int k = 0; k < ps->step.n_inputs; k++)
        pass_input(ps, k, &args->values[node->inputs[k]], args->in[k]);
    pass_run(ps, cost);
    const graph_value *y = &args->values[node->outputs[0]];
    elt_load_fn load_y = io_of(y->dtype)->load[ps->cls];
    for (int k = 2; k < node->n_inputs; k++) {
        eltwise_layout_fold(args->values, node, k, ps->strides, &ps->layout);
        ps->in[0] = ps->y;
        ps->load[0] = load_y;
        ps->native[0] = ps->native_y;
        pass_input(ps, 1, &args->values[node->inputs[k]], args->in[k]);
        pass_run(ps, cost);
    }
    if (op == ELT_MEAN && node->n_inputs > 1) {
        ps->step.op = ELT_MEAN;
        ps->step.n_inputs = 1;
        ps->step.count = node->n_inputs;
        ps->layout.rank = 1;
        ps->layout.dims[0] = (int64_t)ps->layout.count;
        ps->strides[0][0] = 1;
        ps->in[0] = ps->y;
        ps->load[0] = load_y;
        ps->native[0] = ps->native_y;
        pass_run(ps, cost);
    }
}

/* The small types (float8, float4, 4- and 2-bit integers) have no class loaders: Cast
 * converts them element by element. */
static bool is_small_dtype(vkml_dtype t)
{
    return vkml_dtype_is_small_float(t) || cpu_dtype_is_packed_int(t);
}

/* Element i of x (dtype xt) converted to dtype yt and stored at y[i], as Cast does:
 * between integers in int64, else through double (exact for every small type); to the
 * packed integers rounded to nearest even and wrapped, as ONNX's reference does. */
static void cast_small_one(const void *x, vkml_dtype xt, void *y, vkml_dtype yt, int64_t i,
                           const eltwise_params *p)
{
    bool x_float = cpu_dtype_is_float(xt);
    if (yt == VKML_DTYPE_FLOAT8E8M0) {
        cpu_small_set(y, yt, i,
                      vkml_e8m0_encode((float)cpu_load_f64(x, xt, i),
                                       (vkml_e8m0_round)p->e8m0_round, !p->no_saturate));
    } else if (vkml_dtype_is_small_float(yt)) {
        cpu_store_small_float(y, yt, i, cpu_load_f64(x, xt, i), !p->no_saturate);
    } else if (cpu_dtype_is_float(yt)) {
        cpu_store_f64(y, yt, i, cpu_load_f64(x, xt, i));
    } else if (yt == VKML_DTYPE_BOOL) {
        cpu_store_i64(y, yt, i,
                      x_float ? cpu_load_f64(x, xt, i) != 0 : cpu_load_i64(x, xt, i) != 0);
    } else if (!x_float) {
        cpu_store_i64(y, yt, i, cpu_load_i64(x, xt, i));
    } else if (cpu_dtype_is_packed_int(yt)) {
        cpu_store_i64(y, yt, i, cpu_f64_to_i64(nearbyint(cpu_load_f64(x, xt, i))));
    } else {
        double v = cpu_load_f64(x, xt, i), lo = (double)cpu_int_min(yt),
               hi = (double)cpu_int_max(yt);
        v = v != v ? 0 : v < lo ? lo : v > hi ? hi : v;
        cpu_store_i64(y, yt, i, (int64_t)v);
    }
}

/* Cast/CastLike with a small type on either side. One thread: packed elements share bytes. */
static void cast_small(const op_cpu_args *args, const eltwise_params *p)
{
    const graph_value *x = &args->values[args->node->inputs[0]];
    const graph_value *y = &args->values[args->node->outputs[0]];
    int64_t count = (int64_t)vkml_tensor_element_count(x->rank, x->dims);
    for (int64_t i = 0; i < count; i++)
        cast_small_one(args->in[0], x->dtype, args->out[0], y->dtype, i, p);
}

/* Inputs a single pass reads: the broadcast operands, Clip's bounds. */
static int pass_inputs(const eltwise_params *p, const graph_node *node)
{
    switch (p->op) {
    case ELT_CAST_LIKE:
    case ELT_DROPOUT: return 1;
    default: return node->n_inputs < ELT_PASS_INPUTS ? node->n_inputs : ELT_PASS_INPUTS;
    }
}

vkml_status cpu_eltwise(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    const graph_value *values = args->values;
    const eltwise_params *p = node->params;
    char why[160];
    /* Callers may skip the registry's check (tests, tools): the kernels are per class, so
     * a dtype outside the op's mask would compute nonsense rather than crash; refuse it. */
    if (!cpu_kernel_supports(values, node, why, sizeof(why)))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "node '%s': %s", node->name, why);
    vkml_dtype dtype = values[node->inputs[p->op == ELT_WHERE ? 1 : 0]].dtype;
    const graph_value *y = &values[node->outputs[0]];
    if ((p->op == ELT_CAST || p->op == ELT_CAST_LIKE) && dtype == y->dtype &&
        dtype != VKML_DTYPE_STRING) { /* to its own type: a copy */
        if (args->out[0] != args->in[0])
            memmove(args->out[0], args->in[0], cpu_output_bytes(args, 0));
        return VKML_OK;
    }
    if ((p->op == ELT_CAST || p->op == ELT_CAST_LIKE) &&
        (is_small_dtype(dtype) || is_small_dtype(y->dtype)) && y->dtype != VKML_DTYPE_STRING &&
        dtype != VKML_DTYPE_STRING) {
        cast_small(args, p);
        return VKML_OK;
    }
    if (!io_of(dtype) || !io_of(y->dtype))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: no CPU kernel from %s to %s",
                         node->op_type, vkml_dtype_name(dtype), vkml_dtype_name(y->dtype));
    /* The mask checks one input; another may be of a type no loader reads (Pow's exponent). */
    for (int k = 0; k < node->n_inputs; k++)
        if (node->inputs[k] >= 0 && !io_of(values[node->inputs[k]].dtype))
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: no CPU kernel reads input %d (%s)",
                             node->op_type, k, vkml_dtype_name(values[node->inputs[k]].dtype));
    elt_pass ps = {.cls = class_of(dtype), .y = args->out[0]};
    ps.store = io_of(y->dtype)->store[ps.cls];
    ps.native_y = class_native(ps.cls, y->dtype);
    ps.step = (elt_step){.op = p->op, .p = p, .n_inputs = pass_inputs(p, node)};
    double cost = op_cost(p->op);
    if (p->op == ELT_DROPOUT && node->n_outputs > 1 && args->out[1])
        memset(args->out[1], 1, cpu_output_bytes(args, 1));
    if (p->kind == ELT_VARIADIC) {
        run_variadic(&ps, args, cost);
        return VKML_OK;
    }
    pass_layout(&ps, args, 0, ps.step.n_inputs);
    for (int k = 0; k < ps.step.n_inputs; k++) {
        if (node->inputs[k] >= 0)
            pass_input(&ps, k, &values[node->inputs[k]], args->in[k]);
        else
            ps.load[k] = NULL;
    }
    pass_run(&ps, cost);
    return VKML_OK;
}
