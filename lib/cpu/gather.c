/* The indexing ops on the CPU, through one descriptor (ops/gather.h): every index is
 * checked first (an index out of range fails the run naming it and its bound), then
 * gathers copy in parallel; scatters without a reduction write in parallel (ONNX allows
 * no duplicate targets there), with one in index order. */
#include "ops/gather.h"
#include "cpu/cpu_kernels.h"
#include "ops/movement.h"

#include <stdatomic.h>
#include <string.h>

typedef struct ix_job {
    const ix_desc *d;
    const char *src; /* gather: data; scatter: updates */
    const void *idx;
    bool idx64;
    char *dst;
    size_t es;
    vkml_dtype dtype;
} ix_job;

static int64_t read_index(const ix_job *job, int64_t pos)
{
    if (job->idx64)
        return ((const int64_t *)job->idx)[pos];
    return ((const int32_t *)job->idx)[pos];
}

typedef struct check_job {
    const ix_job *job;
    _Atomic int64_t first_bad; /* the first position out of range found, or the count */
} check_job;

static void check_range(void *ctx, int64_t begin, int64_t end)
{
    check_job *c = ctx;
    const ix_desc *d = c->job->d;
    for (int64_t p = begin; p < end; p++) {
        int64_t v = read_index(c->job, p), b = d->idx_bounds[d->k == 1 ? 0 : p % d->k];
        if (v < -b || v >= b) {
            int64_t seen = atomic_load_explicit(&c->first_bad, memory_order_relaxed);
            while (p < seen && !atomic_compare_exchange_weak_explicit(&c->first_bad, &seen, p,
                                                                      memory_order_relaxed,
                                                                      memory_order_relaxed))
                ;
            return;
        }
    }
}

static vkml_status check_indices(const op_cpu_args *args, const ix_job *job, vkml_error *err)
{
    const graph_value *idx = &args->values[args->node->inputs[1]];
    int64_t n = (int64_t)vkml_tensor_element_count(idx->rank, idx->dims);
    check_job c = {.job = job};
    atomic_init(&c.first_bad, n);
    sched_parallel_for(n, 1.0, check_range, &c);
    int64_t p = atomic_load_explicit(&c.first_bad, memory_order_relaxed);
    if (p >= n)
        return VKML_OK;
    int64_t v = read_index(job, p), b = job->d->idx_bounds[p % job->d->k];
    return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                     "%s: index %lld at position %lld of '%s' is out of range [-%lld, %lld)",
                     args->node->op_type, (long long)v, (long long)p, idx->name, (long long)b,
                     (long long)b);
}

typedef struct copy_job {
    char *dst;
    const char *src;
} copy_job;

/* Bytes [begin, end) of a copy between two buffers that do not overlap. */
static void copy_range(void *ctx, int64_t begin, int64_t end)
{
    const copy_job *c = ctx;
    memcpy(c->dst + begin, c->src + begin, (size_t)(end - begin));
}

/* Data offset of domain element coords (indices already checked). */
static int64_t element_offset(const ix_job *job, const int64_t *coords)
{
    const ix_desc *d = job->d;
    int64_t off = 0, row = 0;
    for (int i = 0; i < d->rank; i++) {
        off += coords[i] * d->direct[i];
        row += coords[i] * d->row[i];
    }
    for (int t = 0; t < d->k; t++) {
        int64_t v = read_index(job, row * d->k + t);
        off += (v < 0 ? v + d->idx_bounds[t] : v) * d->idx_strides[t];
    }
    return off;
}

static void gather_range(void *ctx, int64_t begin, int64_t end)
{
    const ix_job *job = ctx;
    int64_t coords[VKML_MAX_RANK] = {0};
    cpu_index_from_linear(begin, job->d->dims, job->d->rank, coords);
    for (int64_t i = begin; i < end; i++) {
        int64_t off = element_offset(job, coords);
        memcpy(job->dst + (size_t)i * job->es, job->src + (size_t)off * job->es, job->es);
        cpu_index_next(coords, job->d->dims, job->d->rank);
    }
}

/* dst = dst (op) src for one element of dtype. */
static void reduce_element(vkml_dtype t, ix_reduction r, void *dst, const void *src, size_t es)
{
    bool is_float = t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_DOUBLE || t == VKML_DTYPE_FLOAT16 ||
                    t == VKML_DTYPE_BFLOAT16;
    uint64_t bits;
    if (is_float) {
        double a = mv_element_to_double(t, dst), b = mv_element_to_double(t, src);
        double v = r == IX_ADD   ? a + b
                   : r == IX_MUL ? a * b
                   : r == IX_MAX ? (a > b ? a : b)
                                 : (a < b ? a : b);
        bits = mv_element_from_double(t, v);
    } else if (t == VKML_DTYPE_BOOL) {
        uint8_t a = *(const uint8_t *)dst, b = *(const uint8_t *)src;
        bits = r == IX_ADD || r == IX_MAX ? (a | b) : (a & b);
    } else {
        uint64_t a = (uint64_t)mv_element_to_int(t, dst), b = (uint64_t)mv_element_to_int(t, src);
        bool less = t == VKML_DTYPE_UINT64 ? a < b : (int64_t)a < (int64_t)b;
        bits = r == IX_ADD   ? a + b
               : r == IX_MUL ? a * b
               : r == IX_MAX ? (less ? b : a)
                             : (less ? a : b);
    }
    memcpy(dst, &bits, es);
}

/* Rows [begin, end) of the updates (a row: the domain's last dim), each row's offsets
 * worked out once, then stepped along it. */
static void scatter_rows(void *ctx, int64_t begin, int64_t end)
{
    const ix_job *job = ctx;
    const ix_desc *d = job->d;
    int last = d->rank - 1;
    int64_t coords[VKML_MAX_RANK] = {0};
    int64_t width = last >= 0 ? d->dims[last] : 1;
    if (last > 0)
        cpu_index_from_linear(begin, d->dims, last, coords);
    for (int64_t row_at = begin; row_at < end; row_at++) {
        int64_t off = 0, row = 0, i = row_at * width;
        for (int a = 0; a < last; a++) {
            off += coords[a] * d->direct[a];
            row += coords[a] * d->row[a];
        }
        for (int64_t j = 0; j < width; j++) {
            int64_t at = off + (last >= 0 ? j * d->direct[last] : 0);
            int64_t r = row + (last >= 0 ? j * d->row[last] : 0);
            for (int t = 0; t < d->k; t++) {
                int64_t v = read_index(job, r * d->k + t);
                at += (v < 0 ? v + d->idx_bounds[t] : v) * d->idx_strides[t];
            }
            char *out = job->dst + (size_t)at * job->es;
            const char *in = job->src + (size_t)(i + j) * job->es;
            if (d->reduction != IX_NONE)
                reduce_element(job->dtype, d->reduction, out, in, job->es);
            else if (job->es == 4)
                memcpy(out, in, 4); /* a fixed size: inlined */
            else
                memcpy(out, in, job->es);
        }
        if (last > 0)
            cpu_index_next(coords, d->dims, last);
    }
}

/* Reductions apply every update in index order; without one ONNX has no duplicate targets
 * (it leaves their order undefined), so the rows are written in parallel. */
static void scatter_all(const ix_job *job)
{
    const ix_desc *d = job->d;
    int64_t width = d->rank > 0 ? d->dims[d->rank - 1] : 1;
    int64_t rows = width > 0 ? (int64_t)vkml_tensor_element_count(d->rank, d->dims) / width : 0;
    if (d->reduction == IX_NONE)
        sched_parallel_for(rows, 4.0 * (double)width, scatter_rows, (void *)job);
    else
        scatter_rows((void *)job, 0, rows);
}

vkml_status cpu_index_op(const op_cpu_args *args, vkml_error *err)
{
    ix_desc d;
    vkml_status st = ix_describe(args->values, args->node, &d, err);
    if (st)
        return st;
    const graph_value *data = &args->values[args->node->inputs[0]];
    ix_job job = {
        .d = &d,
        .src = d.scatter ? args->in[2] : args->in[0],
        .idx = args->in[1],
        .idx64 = args->values[args->node->inputs[1]].dtype == VKML_DTYPE_INT64,
        .dst = args->out[0],
        .es = vkml_dtype_size(data->dtype),
        .dtype = data->dtype,
    };
    if ((st = check_indices(args, &job, err)))
        return st;
    int64_t n = (int64_t)vkml_tensor_element_count(d.rank, d.dims), block;
    if (gather_block(args->values, args->node, &block) &&
        (const char *)args->in[0] + block * (int64_t)job.es == (const char *)args->out[0])
        return VKML_OK; /* a view (plan/views.h): the block is already where it goes */
    if (!d.scatter) {
        if (n)
            sched_parallel_for(n, 4.0 + d.rank, gather_range, &job);
        return VKML_OK;
    }
    size_t bytes = cpu_output_bytes(args, 0);
    char *out = args->out[0];
    const char *in = args->in[0];
    copy_job copy = {.dst = out, .src = in};
    if (out != in && bytes && (out + bytes <= in || in + bytes <= out))
        sched_parallel_for((int64_t)bytes, 0.1, copy_range, &copy); /* the data, then updates */
    else if (out != in && bytes)
        memmove(out, in, bytes);
    scatter_all(&job);
    return VKML_OK;
}
