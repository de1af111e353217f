/* CPU reductions over a reduce_view: Reduce*, ArgMax/ArgMin (one routine, the op a
 * switch), CumSum and TopK. Floats accumulate in double, integers in int64. */
#include "ops/reduce.h"
#include "cpu/cpu_elem.h"
#include "cpu/cpu_kernels.h"

#include <stdlib.h>
#include <string.h>

typedef struct reduce_job {
    const reduce_view *v;
    reduce_op op;
    bool select_last;
    vkml_dtype t, ot;
    const void *x;
    void *y;
} reduce_job;

static double float_identity(reduce_op op)
{
    switch (op) {
    case REDUCE_MAX:
    case REDUCE_LOG_SUM_EXP: return -INFINITY;
    case REDUCE_MIN: return INFINITY;
    case REDUCE_PROD: return 1.0;
    default: return 0.0;
    }
}

static double float_step(reduce_op op, double acc, double x)
{
    switch (op) {
    case REDUCE_MAX: return x > acc || x != x ? x : acc;
    case REDUCE_MIN: return x < acc || x != x ? x : acc;
    case REDUCE_PROD: return acc * x;
    case REDUCE_L1: return acc + fabs(x);
    case REDUCE_L2:
    case REDUCE_SUM_SQUARE: return acc + x * x;
    default: return acc + x;
    }
}

/* A float32 line along one reduced dim (LayerNorm's mean over channels, say): read
 * through a pointer, the op's step inlined; the same sums as the general loop. */
static bool reduce_line_f32_run(const reduce_job *j, int64_t base, double *out)
{
    const reduce_view *v = j->v;
    if (j->t != VKML_DTYPE_FLOAT || v->n_red != 1)
        return false;
    const float *x = (const float *)j->x + base;
    int64_t n = v->count, s = v->red_strides[0];
    double acc = 0.0;
    switch (j->op) {
    case REDUCE_SUM:
    case REDUCE_MEAN:
        for (int64_t r = 0; r < n; r++)
            acc += x[r * s];
        *out = j->op == REDUCE_MEAN ? acc / (double)n : acc;
        return true;
    case REDUCE_SUM_SQUARE:
    case REDUCE_L2:
        for (int64_t r = 0; r < n; r++)
            acc += (double)x[r * s] * x[r * s];
        *out = j->op == REDUCE_L2 ? sqrt(acc) : acc;
        return true;
    default: return false;
    }
}

static double reduce_line_float(const reduce_job *j, int64_t base)
{
    const reduce_view *v = j->v;
    double fast;
    if (reduce_line_f32_run(j, base, &fast))
        return fast;
    double shift = 0.0; /* LogSumExp: sum exp(x - max), then add max back */
    if (j->op == REDUCE_LOG_SUM_EXP) {
        shift = -INFINITY;
        for (int64_t r = 0; r < v->count; r++)
            shift = float_step(REDUCE_MAX, shift,
                               cpu_load_f64(j->x, j->t, base + reduce_elem_offset(v, r)));
        if (!isfinite(shift))
            return v->count ? shift : -INFINITY;
    }
    double acc = j->op == REDUCE_LOG_SUM_EXP ? 0.0 : float_identity(j->op);
    for (int64_t r = 0; r < v->count; r++) {
        double x = cpu_load_f64(j->x, j->t, base + reduce_elem_offset(v, r));
        acc = j->op == REDUCE_LOG_SUM_EXP ? acc + exp(x - shift) : float_step(j->op, acc, x);
    }
    switch (j->op) {
    case REDUCE_MEAN: return acc / (double)v->count;
    case REDUCE_L2: return sqrt(acc);
    case REDUCE_LOG_SUM: return log(acc);
    case REDUCE_LOG_SUM_EXP: return shift + log(acc);
    default: return acc;
    }
}

/* Integer Sum/Mean/Max/Min/Prod/L1/SumSquare; wraps like the dtype (uint64 arithmetic). */
static int64_t reduce_line_int(const reduce_job *j, int64_t base)
{
    const reduce_view *v = j->v;
    int64_t acc = j->op == REDUCE_MAX    ? cpu_int_min(j->t)
                  : j->op == REDUCE_MIN  ? cpu_int_max(j->t)
                  : j->op == REDUCE_PROD ? 1
                                         : 0;
    for (int64_t r = 0; r < v->count; r++) {
        int64_t x = cpu_load_i64(j->x, j->t, base + reduce_elem_offset(v, r));
        switch (j->op) {
        case REDUCE_MAX: acc = x > acc ? x : acc; break;
        case REDUCE_MIN: acc = x < acc ? x : acc; break;
        case REDUCE_PROD: acc = (int64_t)((uint64_t)acc * (uint64_t)x); break;
        case REDUCE_L1:
            acc = (int64_t)((uint64_t)acc + (uint64_t)(x < 0 ? -(uint64_t)x : (uint64_t)x));
            break;
        case REDUCE_SUM_SQUARE: acc = (int64_t)((uint64_t)acc + (uint64_t)x * (uint64_t)x); break;
        default: acc = (int64_t)((uint64_t)acc + (uint64_t)x); break;
        }
    }
    return j->op == REDUCE_MEAN && v->count ? acc / v->count : acc;
}

/* Index along the reduced axis of the first (or last) max/min. */
static int64_t reduce_line_arg(const reduce_job *j, int64_t base)
{
    const reduce_view *v = j->v;
    bool is_max = j->op == REDUCE_ARGMAX, is_float = cpu_dtype_is_float(j->t);
    int64_t best = 0;
    double bf = 0.0;
    int64_t bi = 0;
    for (int64_t r = 0; r < v->count; r++) {
        int64_t off = base + reduce_elem_offset(v, r);
        int cmp;
        if (is_float) {
            double x = cpu_load_f64(j->x, j->t, off);
            cmp = r == 0 ? 1 : x > bf ? 1 : x < bf ? -1 : 0;
            if (!is_max)
                cmp = r == 0 ? 1 : -cmp;
            if (cmp > 0 || (cmp == 0 && j->select_last))
                bf = x;
        } else {
            int64_t x = cpu_load_i64(j->x, j->t, off);
            cmp = r == 0 ? 1 : x > bi ? 1 : x < bi ? -1 : 0;
            if (!is_max)
                cmp = r == 0 ? 1 : -cmp;
            if (cmp > 0 || (cmp == 0 && j->select_last))
                bi = x;
        }
        if (cmp > 0 || (cmp == 0 && j->select_last))
            best = r;
    }
    return best;
}

static void reduce_lines(void *ctx, int64_t begin, int64_t end)
{
    const reduce_job *j = ctx;
    bool int_path = !cpu_dtype_is_float(j->t) && j->op != REDUCE_L2 && j->op != REDUCE_LOG_SUM &&
                    j->op != REDUCE_LOG_SUM_EXP;
    for (int64_t line = begin; line < end; line++) {
        int64_t base = reduce_line_offset(j->v, line);
        if (j->op == REDUCE_ARGMAX || j->op == REDUCE_ARGMIN)
            ((int64_t *)j->y)[line] = reduce_line_arg(j, base);
        else if (int_path)
            cpu_store_i64(j->y, j->ot, line, reduce_line_int(j, base));
        else
            cpu_store_f64(j->y, j->ot, line, reduce_line_float(j, base));
    }
}

vkml_status cpu_reduce(const op_cpu_args *args, vkml_error *err)
{
    reduce_geom g;
    vkml_status st = reduce_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const reduce_params *p = args->node->params;
    reduce_job j = {
        .v = &g.view,
        .op = p->op,
        .select_last = p->select_last_index,
        .t = args->values[args->node->inputs[0]].dtype,
        .ot = g.out_dtype,
        .x = args->in[0],
        .y = args->out[0],
    };
    sched_parallel_for(g.view.lines, (double)g.view.count * 8, reduce_lines, &j);
    return VKML_OK;
}

/* One step of a running sum or product (integers wrap, as unsigned). */
static inline void scan_step(bool product, double *accf, int64_t *acci, double xf, int64_t xi)
{
    *accf = product ? *accf * xf : *accf + xf;
    *acci = (int64_t)(product ? (uint64_t)*acci * (uint64_t)xi : (uint64_t)*acci + (uint64_t)xi);
}

vkml_status cpu_cumsum(const op_cpu_args *args, vkml_error *err)
{
    scan_geom g;
    vkml_status st = cumsum_resolve(args->values, args->node, args->in[1], &g, err);
    if (st)
        return st;
    const cumsum_params *p = args->node->params;
    vkml_dtype t = args->values[args->node->inputs[0]].dtype;
    bool is_float = cpu_dtype_is_float(t);
    for (int64_t o = 0; o < g.outer; o++) {
        for (int64_t i = 0; i < g.inner; i++) {
            double accf = p->product ? 1.0 : 0.0;
            int64_t acci = p->product ? 1 : 0;
            for (int64_t s = 0; s < g.len; s++) {
                int64_t a = p->reverse ? g.len - 1 - s : s;
                int64_t off = (o * g.len + a) * g.inner + i;
                double xf = is_float ? cpu_load_f64(args->in[0], t, off) : 0.0;
                int64_t xi = is_float ? 0 : cpu_load_i64(args->in[0], t, off);
                if (!p->exclusive)
                    scan_step(p->product, &accf, &acci, xf, xi);
                if (is_float)
                    cpu_store_f64(args->out[0], t, off, accf);
                else
                    cpu_store_i64(args->out[0], t, off, acci);
                if (p->exclusive)
                    scan_step(p->product, &accf, &acci, xf, xi);
            }
        }
    }
    return VKML_OK;
}

/* TopK: one line's elements sorted by value (largest or smallest first), ties by lower
 * index (a stable order of indices). Floats compare as doubles (v), integers exactly as
 * an order-preserving uint64 key (u; signed ones with the sign bit flipped). */
typedef struct topk_item {
    double v;
    uint64_t u;
    int64_t i;
} topk_item;

static topk_item topk_load(const void *x, vkml_dtype t, int64_t at, int64_t index)
{
    topk_item item = {.i = index};
    if (cpu_dtype_is_float(t))
        item.v = cpu_load_f64(x, t, at);
    else if (t == VKML_DTYPE_UINT64)
        item.u = (uint64_t)cpu_load_i64(x, t, at);
    else
        item.u = (uint64_t)cpu_load_i64(x, t, at) ^ (UINT64_C(1) << 63);
    return item;
}

/* <0 when x orders before y by value, largest first (NaN above every number); 0 on equal
 * values. */
static int topk_cmp_values(const topk_item *x, const topk_item *y)
{
    if (isnan(x->v) || isnan(y->v))
        return isnan(x->v) == isnan(y->v) ? 0 : isnan(x->v) ? -1 : 1;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    if (x->u != y->u)
        return x->u > y->u ? -1 : 1;
    return 0;
}

static int topk_cmp_largest(const void *a, const void *b)
{
    const topk_item *x = a, *y = b;
    int c = topk_cmp_values(x, y);
    return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

static int topk_cmp_smallest(const void *a, const void *b)
{
    const topk_item *x = a, *y = b;
    int c = -topk_cmp_values(x, y);
    return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

vkml_status cpu_topk(const op_cpu_args *args, vkml_error *err)
{
    topk_geom g;
    vkml_status st = topk_resolve(args->values, args->node, &g, err);
    if (st)
        return st;
    const topk_params *p = args->node->params;
    vkml_dtype t = args->values[args->node->inputs[0]].dtype;
    topk_item *items = malloc((size_t)(g.len ? g.len : 1) * sizeof(*items));
    if (!items)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "TopK: out of memory for %lld elements",
                         (long long)g.len);
    for (int64_t o = 0; o < g.outer; o++) {
        for (int64_t i = 0; i < g.inner; i++) {
            for (int64_t a = 0; a < g.len; a++)
                items[a] = topk_load(args->in[0], t, (o * g.len + a) * g.inner + i, a);
            qsort(items, (size_t)g.len, sizeof(*items),
                  p->largest ? topk_cmp_largest : topk_cmp_smallest);
            for (int64_t k = 0; k < g.k; k++) {
                int64_t out = (o * g.k + k) * g.inner + i;
                int64_t src = (o * g.len + items[k].i) * g.inner + i;
                memcpy((char *)args->out[0] + out * vkml_dtype_size(t),
                       (const char *)args->in[0] + src * vkml_dtype_size(t), vkml_dtype_size(t));
                ((int64_t *)args->out[1])[out] = items[k].i;
            }
        }
    }
    free(items);
    return VKML_OK;
}
