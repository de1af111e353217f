/* Elementwise CPU kernels: binary ops with numpy broadcasting (float, double and every
 * integer type) and float activations. */
#include "ops/elementwise.h"
#include "cpu/cpu_kernels.h"

#include <math.h>

/* Integer division truncating toward zero like C; x / 0 gives 0 and MIN / -1 wraps,
 * instead of trapping (ONNX leaves both undefined). */
#define SDIV(T, UT, a, b) ((b) == 0 ? (T)0 : (b) == -1 ? (T)(0 - (UT)(a)) : (T)((a) / (b)))
#define UDIV(T, UT, a, b) ((b) == 0 ? (T)0 : (T)((a) / (b)))
#define FDIV(T, UT, a, b) ((a) / (b))

#define BINARY_LOOP(EXPR)                                                                          \
    for (int64_t j = 0; j < inner; j++) {                                                          \
        T a = pa[j * sa], b = pb[j * sb];                                                          \
        py[j] = (EXPR);                                                                            \
    }

/* One innermost row of the broadcast: `inner` elements at strides sa/sb from the element
 * offsets off[0] (a) and off[1] (b), written densely from off[2] (y). Integer sums and
 * products go through the unsigned type UT (at least 32 bits, so nothing is promoted to
 * int) so overflow wraps instead of being undefined. */
#define DEFINE_BINARY_ROW(name, T_, UT_, DIV)                                                      \
    static void name(eltwise_op op, const void *va, int64_t sa, const void *vb, int64_t sb,        \
                     void *vy, const int64_t *off, int64_t inner)                                  \
    {                                                                                              \
        typedef T_ T;                                                                              \
        typedef UT_ UT;                                                                            \
        const T *pa = (const T *)va + off[0], *pb = (const T *)vb + off[1];                        \
        T *py = (T *)vy + off[2];                                                                  \
        switch (op) {                                                                              \
        case ELTWISE_ADD: BINARY_LOOP((T)((UT)a + (UT)b)) break;                                   \
        case ELTWISE_SUB: BINARY_LOOP((T)((UT)a - (UT)b)) break;                                   \
        case ELTWISE_MUL: BINARY_LOOP((T)((UT)a * (UT)b)) break;                                   \
        case ELTWISE_DIV: BINARY_LOOP(DIV(T, UT, a, b)) break;                                     \
        default: break;                                                                            \
        }                                                                                          \
    }

DEFINE_BINARY_ROW(row_f32, float, float, FDIV)
DEFINE_BINARY_ROW(row_f64, double, double, FDIV)
DEFINE_BINARY_ROW(row_i8, int8_t, uint32_t, SDIV)
DEFINE_BINARY_ROW(row_i16, int16_t, uint32_t, SDIV)
DEFINE_BINARY_ROW(row_i32, int32_t, uint32_t, SDIV)
DEFINE_BINARY_ROW(row_i64, int64_t, uint64_t, SDIV)
DEFINE_BINARY_ROW(row_u8, uint8_t, uint32_t, UDIV)
DEFINE_BINARY_ROW(row_u16, uint16_t, uint32_t, UDIV)
DEFINE_BINARY_ROW(row_u32, uint32_t, uint32_t, UDIV)
DEFINE_BINARY_ROW(row_u64, uint64_t, uint64_t, UDIV)

typedef void (*binary_row_fn)(eltwise_op op, const void *a, int64_t sa, const void *b, int64_t sb,
                              void *y, const int64_t *off, int64_t inner);

static const struct {
    vkml_dtype dtype;
    binary_row_fn row;
} binary_rows[] = {
    {VKML_DTYPE_FLOAT, row_f32},  {VKML_DTYPE_DOUBLE, row_f64}, {VKML_DTYPE_INT8, row_i8},
    {VKML_DTYPE_INT16, row_i16},  {VKML_DTYPE_INT32, row_i32},  {VKML_DTYPE_INT64, row_i64},
    {VKML_DTYPE_UINT8, row_u8},   {VKML_DTYPE_UINT16, row_u16}, {VKML_DTYPE_UINT32, row_u32},
    {VKML_DTYPE_UINT64, row_u64},
};

static binary_row_fn binary_row_for(vkml_dtype dtype)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(binary_rows); i++)
        if (binary_rows[i].dtype == dtype)
            return binary_rows[i].row;
    return NULL;
}

typedef struct binary_job {
    const eltwise_params *p;
    binary_row_fn row;
    const void *a, *b;
    void *y;
} binary_job;

/* Rows [begin, end) of the output's innermost dimension. */
static void binary_rows_run(void *ctx, int64_t begin, int64_t end)
{
    const binary_job *job = ctx;
    const eltwise_params *p = job->p;
    int64_t inner = p->rank ? p->dims[p->rank - 1] : 1;
    int64_t sa = p->rank ? p->a_strides[p->rank - 1] : 0;
    int64_t sb = p->rank ? p->b_strides[p->rank - 1] : 0;
    for (int64_t r = begin; r < end; r++) {
        /* Offsets of row r: walk the outer dims of the output index. */
        int64_t rest = r, off[3] = {0, 0, r * inner};
        for (int d = p->rank - 2; d >= 0; d--) {
            int64_t i = rest % p->dims[d];
            rest /= p->dims[d];
            off[0] += i * p->a_strides[d];
            off[1] += i * p->b_strides[d];
        }
        job->row(p->op, job->a, sa, job->b, sb, job->y, off, inner);
    }
}

vkml_status cpu_eltwise_binary(const op_cpu_args *args, vkml_error *err)
{
    eltwise_params p;
    vkml_status st = eltwise_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    if (p.count == 0)
        return VKML_OK;
    binary_row_fn row = binary_row_for(p.dtype);
    if (!row)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: no CPU kernel for dtype %s",
                         args->node->op_type, vkml_dtype_name(p.dtype));
    binary_job job = {.p = &p, .row = row, .a = args->in[0], .b = args->in[1], .y = args->out[0]};
    int64_t inner = p.rank ? p.dims[p.rank - 1] : 1;
    cpu_parallel_for((int64_t)p.count / inner, (double)inner, binary_rows_run, &job);
    return VKML_OK;
}

static float unary(eltwise_op op, float x)
{
    switch (op) {
    case ELTWISE_RELU: return x < 0.0f ? 0.0f : x; /* NaN stays NaN */
    case ELTWISE_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case ELTWISE_TANH: return tanhf(x);
    default: return x;
    }
}

/* Elements per work item of the unary kernels. */
#define UNARY_BLOCK 4096

typedef struct unary_job {
    eltwise_op op;
    const float *x;
    float *y;
    size_t count;
} unary_job;

static void unary_blocks_run(void *ctx, int64_t begin, int64_t end)
{
    const unary_job *job = ctx;
    size_t stop = (size_t)end * UNARY_BLOCK;
    if (stop > job->count)
        stop = job->count;
    for (size_t i = (size_t)begin * UNARY_BLOCK; i < stop; i++)
        job->y[i] = unary(job->op, job->x[i]);
}

vkml_status cpu_eltwise_unary(const op_cpu_args *args, vkml_error *err)
{
    eltwise_params p;
    vkml_status st = eltwise_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    unary_job job = {.op = p.op, .x = args->in[0], .y = args->out[0], .count = p.count};
    int64_t blocks = (int64_t)((p.count + UNARY_BLOCK - 1) / UNARY_BLOCK);
    /* Cost: a few flops per element for Relu, ~20 for exp/tanh. */
    cpu_parallel_for(blocks, p.op == ELTWISE_RELU ? UNARY_BLOCK : 20.0 * UNARY_BLOCK,
                     unary_blocks_run, &job);
    return VKML_OK;
}
