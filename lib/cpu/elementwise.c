/* Elementwise CPU kernels: binary ops with numpy broadcasting (float, int32, int64) and
 * float activations. */
#include "cpu/cpu_kernels.h"
#include "ops/elementwise.h"
#include "ops/op_decls.h"

#include <math.h>

/* Integer division truncating toward zero like C; x / 0 gives 0 and MIN / -1 wraps,
 * instead of trapping (ONNX leaves both undefined). */
#define INT_DIV(T, UT, a, b) ((b) == 0 ? (T)0 : (b) == -1 ? (T)(0 - (UT)(a)) : (T)((a) / (b)))

#define BINARY_LOOP(T, EXPR)                                                                 \
    for (int64_t j = 0; j < inner; j++) {                                                    \
        T a = pa[j * sa], b = pb[j * sb];                                                    \
        py[j] = (EXPR);                                                                      \
    }

/* One innermost row of the broadcast: inner elements at strides sa/sb. Integer sums and
 * products go through the unsigned type UT so overflow wraps instead of being undefined. */
#define DEFINE_BINARY_ROW(name, T, UT, DIV_EXPR)                                             \
    static void name(eltwise_op op, const T *pa, int64_t sa, const T *pb, int64_t sb, T *py,  \
                     int64_t inner)                                                          \
    {                                                                                        \
        switch (op) {                                                                        \
        case ELTWISE_ADD: BINARY_LOOP(T, (T)((UT)a + (UT)b)) break;                                       \
        case ELTWISE_SUB: BINARY_LOOP(T, (T)((UT)a - (UT)b)) break;                                       \
        case ELTWISE_MUL: BINARY_LOOP(T, (T)((UT)a * (UT)b)) break;                                       \
        case ELTWISE_DIV: BINARY_LOOP(T, DIV_EXPR) break;                                    \
        default: break;                                                                      \
        }                                                                                    \
    }

DEFINE_BINARY_ROW(row_f32, float, float, a / b)
DEFINE_BINARY_ROW(row_i32, int32_t, uint32_t, INT_DIV(int32_t, uint32_t, a, b))
DEFINE_BINARY_ROW(row_i64, int64_t, uint64_t, INT_DIV(int64_t, uint64_t, a, b))

static void binary_row(const eltwise_params *p, const char *a, const char *b, char *y,
                       int64_t a_off, int64_t b_off, int64_t y_off, int64_t inner)
{
    int64_t sa = p->rank ? p->a_strides[p->rank - 1] : 0;
    int64_t sb = p->rank ? p->b_strides[p->rank - 1] : 0;
    switch (p->dtype) {
    case VKML_DTYPE_FLOAT:
        row_f32(p->op, (const float *)a + a_off, sa, (const float *)b + b_off, sb,
                (float *)y + y_off, inner);
        break;
    case VKML_DTYPE_INT32:
        row_i32(p->op, (const int32_t *)a + a_off, sa, (const int32_t *)b + b_off, sb,
                (int32_t *)y + y_off, inner);
        break;
    default:
        row_i64(p->op, (const int64_t *)a + a_off, sa, (const int64_t *)b + b_off, sb,
                (int64_t *)y + y_off, inner);
        break;
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
    int64_t inner = p.rank ? p.dims[p.rank - 1] : 1;
    int64_t rows = (int64_t)p.count / inner;
    for (int64_t r = 0; r < rows; r++) {
        /* Offsets of row r: walk the outer dims of the output index. */
        int64_t rest = r, a_off = 0, b_off = 0;
        for (int d = p.rank - 2; d >= 0; d--) {
            int64_t i = rest % p.dims[d];
            rest /= p.dims[d];
            a_off += i * p.a_strides[d];
            b_off += i * p.b_strides[d];
        }
        binary_row(&p, args->in[0], args->in[1], args->out[0], a_off, b_off, r * inner, inner);
    }
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

vkml_status cpu_eltwise_unary(const op_cpu_args *args, vkml_error *err)
{
    eltwise_params p;
    vkml_status st = eltwise_params_parse(args->values, args->node, &p, err);
    if (st)
        return st;
    const float *x = args->in[0];
    float *y = args->out[0];
    for (size_t i = 0; i < p.count; i++)
        y[i] = unary(p.op, x[i]);
    return VKML_OK;
}
