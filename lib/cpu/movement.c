/* The movement steps (ops/movement.h) on the CPU, by element size: one strided copy, one
 * mapped copy (Pad, Tile, ConstantOfShape), one band copy (Trilu, EyeLike); every op of
 * the family that is made of steps runs through cpu_movement. */
#include "ops/movement.h"
#include "cpu/cpu_kernels.h"

#include <string.h>

typedef struct step_job {
    const mv_step *s;
    const char *src;
    char *dst;
    size_t esize;
} step_job;

/* Elements of the domain before its last dim (the rows the jobs split). */
static int64_t row_count(const mv_step *s)
{
    int64_t n = 1;
    for (int d = 0; d + 1 < s->rank; d++)
        n *= s->dims[d];
    return n;
}

#define COPY_RUN(T)                                                                                \
    for (int64_t j = 0; j < n; j++)                                                                \
    memcpy(dst + (size_t)(o + j * os) * sizeof(T), src + (size_t)(i + j * is) * sizeof(T),         \
           sizeof(T))

/* n elements from src[i + j * is] to dst[o + j * os], element size es. */
static void copy_run(char *dst, int64_t o, int64_t os, const char *src, int64_t i, int64_t is,
                     int64_t n, size_t es)
{
    if (os == 1 && is == 1) {
        memcpy(dst + (size_t)o * es, src + (size_t)i * es, (size_t)n * es);
        return;
    }
    switch (es) {
    case 1: COPY_RUN(uint8_t); break;
    case 2: COPY_RUN(uint16_t); break;
    case 4: COPY_RUN(uint32_t); break;
    default: COPY_RUN(uint64_t); break;
    }
}

static void strided_rows(void *ctx, int64_t begin, int64_t end)
{
    const step_job *job = ctx;
    const mv_step *s = job->s;
    int last = s->rank - 1;
    int64_t idx[VKML_MAX_RANK] = {0};
    if (last > 0)
        cpu_index_from_linear(begin, s->dims, last, idx);
    for (int64_t r = begin; r < end; r++) {
        int64_t si = s->src_offset, di = s->dst_offset;
        for (int d = 0; d < last; d++) {
            si += idx[d] * s->src_strides[d];
            di += idx[d] * s->dst_strides[d];
        }
        if (last < 0)
            copy_run(job->dst, di, 1, job->src, si, 1, 1, job->esize);
        else
            copy_run(job->dst, di, s->dst_strides[last], job->src, si, s->src_strides[last],
                     s->dims[last], job->esize);
        if (last > 0)
            cpu_index_next(idx, s->dims, last);
    }
}

/* Coordinate c of the output mapped into [0, n) of the source; false: outside (constant
 * mode). No loops: reflection and wrap are modular. */
static bool map_coord(mv_mode mode, int64_t c, int64_t n, int64_t *out)
{
    if (c >= 0 && c < n) {
        *out = c;
        return true;
    }
    if (mode == MV_MODE_CONSTANT || n <= 0)
        return false;
    if (mode == MV_MODE_EDGE) {
        *out = c < 0 ? 0 : n - 1;
    } else if (mode == MV_MODE_WRAP) {
        *out = ((c % n) + n) % n;
    } else {
        int64_t period = 2 * (n - 1);
        int64_t m = period ? ((c % period) + period) % period : 0;
        *out = m < n ? m : period - m;
    }
    return true;
}

static void put_value(char *dst, size_t es, uint64_t value)
{
    memcpy(dst, &value, es); /* little-endian: the low bytes */
}

/* n elements of es bytes at out, each `value` (doubling copies). */
static void fill_run(char *out, int64_t n, size_t es, uint64_t value)
{
    if (n <= 0)
        return;
    put_value(out, es, value);
    size_t done = es, total = (size_t)n * es;
    while (done < total) {
        size_t k = done < total - done ? done : total - done;
        memcpy(out + done, out, k);
        done += k;
    }
}

/* A row of constant mode: the source's run of it copied whole, the rest filled. */
static void constant_row(const step_job *job, char *out, int64_t base, int64_t n)
{
    const mv_step *s = job->s;
    size_t es = job->esize;
    int last = s->rank - 1;
    int64_t j0 = s->begin[last] > 0 ? s->begin[last] : 0;
    int64_t j1 = s->begin[last] + s->src_dims[last];
    j0 = j0 < n ? j0 : n;
    j1 = j1 < j0 ? j0 : j1 > n ? n : j1;
    fill_run(out, j0, es, s->value);
    if (j1 > j0)
        memcpy(out + (size_t)j0 * es, job->src + (size_t)(base + j0 - s->begin[last]) * es,
               (size_t)(j1 - j0) * es);
    fill_run(out + (size_t)j1 * es, n - j1, es, s->value);
}

static void mapped_rows(void *ctx, int64_t begin, int64_t end)
{
    const step_job *job = ctx;
    const mv_step *s = job->s;
    size_t es = job->esize;
    int last = s->rank - 1;
    int64_t idx[VKML_MAX_RANK] = {0}, src_strides[VKML_MAX_RANK], stride = 1;
    for (int d = s->rank - 1; d >= 0; d--) {
        src_strides[d] = stride;
        stride *= s->src_dims[d];
    }
    if (last > 0)
        cpu_index_from_linear(begin, s->dims, last, idx);
    int64_t n = last >= 0 ? s->dims[last] : 1;
    for (int64_t r = begin; r < end; r++) {
        int64_t base = 0, c = 0;
        bool inside = true;
        for (int d = 0; d < last && inside; d++) {
            inside = map_coord(s->mode, idx[d] - s->begin[d], s->src_dims[d], &c);
            base += inside ? c * src_strides[d] : 0;
        }
        char *out = job->dst + (size_t)(r * n) * es;
        if (!inside) {
            fill_run(out, n, es, s->value);
        } else if (s->mode == MV_MODE_CONSTANT && last >= 0) {
            constant_row(job, out, base, n);
        } else {
            for (int64_t j = 0; j < n; j++) {
                bool in = inside && (last < 0 ||
                                     map_coord(s->mode, j - s->begin[last], s->src_dims[last], &c));
                if (in)
                    memcpy(out + (size_t)j * es,
                           job->src + (size_t)(base + (last < 0 ? 0 : c)) * es, es);
                else
                    put_value(out + (size_t)j * es, es, s->value);
            }
        }
        if (last > 0)
            cpu_index_next(idx, s->dims, last);
    }
}

/* Rows of a [batch, rows, cols] band. */
static void band_rows(void *ctx, int64_t begin, int64_t end)
{
    const step_job *job = ctx;
    const mv_step *s = job->s;
    size_t es = job->esize;
    int64_t cols = s->dims[2];
    for (int64_t r = begin; r < end; r++) {
        int64_t i = r % s->dims[1];
        char *out = job->dst + (size_t)(r * cols) * es;
        for (int64_t j = 0; j < cols; j++) {
            int64_t diag = j - i;
            size_t at = (size_t)j * es;
            if (diag < s->band_lo || diag > s->band_hi)
                put_value(out + at, es, s->value);
            else if (s->band_from_src)
                memcpy(out + at, job->src + (size_t)(r * cols) * es + at, es);
            else
                put_value(out + at, es, s->band_value);
        }
    }
}

void cpu_move_step(const mv_step *s, const void *src, void *dst, size_t esize)
{
    step_job job = {.s = s, .src = src, .dst = dst, .esize = esize};
    int64_t rows = s->kind == MV_BAND ? s->dims[0] * s->dims[1] : row_count(s);
    int64_t per_row = s->rank > 0 ? s->dims[s->rank - 1] : 1;
    if (rows == 0 || per_row == 0)
        return;
    sched_range_fn fn = s->kind == MV_STRIDED  ? strided_rows
                        : s->kind == MV_MAPPED ? mapped_rows
                                               : band_rows;
    sched_parallel_for(rows, (double)per_row, fn, &job);
}

vkml_status cpu_movement(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    for (int k = 0; k < mv_step_count(node); k++) {
        mv_step s;
        vkml_status st = mv_describe(args->values, node, args->in, k, &s, err);
        if (st)
            return st;
        int out = node->outputs[s.dst];
        if (out < 0)
            continue;
        size_t es = vkml_dtype_size(args->values[out].dtype);
        const char *from = (const char *)args->in[s.src] + s.src_offset * (int64_t)es;
        if (mv_step_contiguous(&s) && from == (char *)args->out[s.dst] + s.dst_offset * (int64_t)es)
            continue; /* a view: the block is already where it goes */
        cpu_move_step(&s, args->in[s.src], args->out[s.dst], es);
    }
    return VKML_OK;
}
