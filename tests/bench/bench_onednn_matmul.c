/* oneDNN's float32 matmul as the CPU device runs a product by a constant B (B packed once
 * in the layout the primitive asks for), whole and with N cut into column blocks (one
 * primitive a block, Y written in place through its row stride), timed on one stream:
 *   bench_onednn_matmul M N K [BLOCKS ...]
 * prints the median and least ms of 40 runs after one, and GFLOP/s, per block count
 * (default 1 2 4 8). Threads: OMP_NUM_THREADS; ALIGN: the buffers' alignment (default 64,
 * 0 for malloc's); POST_OP=1: an identity eltwise post-op. It shows where oneDNN 2.6's
 * gemm:jit falls off for a shape standalone (docs/performance.md, "The CPU device against
 * ONNX Runtime", says how that differs inside a session). */
#include <oneapi/dnnl/dnnl.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 40
#define MAX_BLOCKS 16

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void strided(dnnl_memory_desc_t *md, int64_t rows, int64_t cols, int64_t row_stride)
{
    dnnl_dims_t dims = {rows, cols}, strides = {row_stride, 1};
    dnnl_memory_desc_init_by_strides(md, 2, dims, dnnl_f32, strides);
}

typedef struct block {
    dnnl_primitive_t prim;
    dnnl_exec_arg_t args[3];
} block;

/* The primitive of columns [n0, n0 + nc) of Y = X W, W's block packed into its memory. */
static int block_make(dnnl_engine_t eng, dnnl_stream_t stream, int64_t m, int64_t n, int64_t k,
                      int64_t n0, int64_t nc, float *x, float *w, float *y, block *b)
{
    dnnl_memory_desc_t a, w_plain, w_any, c;
    strided(&a, m, k, k);
    strided(&w_plain, k, nc, n);
    strided(&c, m, nc, n);
    dnnl_dims_t wd = {k, nc};
    dnnl_memory_desc_init_by_tag(&w_any, 2, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd, rpd;
    dnnl_primitive_attr_t attr = NULL;
    if (getenv("POST_OP")) { /* an identity post-op: y = 1 * y + 0 */
        dnnl_post_ops_t po;
        dnnl_primitive_attr_create(&attr);
        dnnl_post_ops_create(&po);
        dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, 1.0f, 0.0f);
        dnnl_primitive_attr_set_post_ops(attr, po);
    }
    if (dnnl_matmul_desc_init(&desc, &a, &w_any, NULL, &c) ||
        dnnl_primitive_desc_create(&pd, &desc, attr, eng, NULL) ||
        dnnl_primitive_create(&b->prim, pd))
        return -1;
    const dnnl_memory_desc_t *packed = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_memory_t ma, mw, mp, mc;
    dnnl_primitive_t reorder;
    if (dnnl_memory_create(&ma, &a, eng, x) || dnnl_memory_create(&mw, &w_plain, eng, w + n0) ||
        dnnl_memory_create(&mp, packed, eng, DNNL_MEMORY_ALLOCATE) ||
        dnnl_memory_create(&mc, &c, eng, y + n0) ||
        dnnl_reorder_primitive_desc_create(&rpd, &w_plain, eng, packed, eng, NULL) ||
        dnnl_primitive_create(&reorder, rpd))
        return -1;
    dnnl_exec_arg_t r[2] = {{DNNL_ARG_FROM, mw}, {DNNL_ARG_TO, mp}};
    dnnl_primitive_execute(reorder, stream, 2, r);
    dnnl_stream_wait(stream);
    b->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, ma};
    b->args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mp};
    b->args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, mc};
    return 0;
}

static float *alloc_floats(size_t count, size_t align)
{
    size_t bytes = sizeof(float) * count;
    if (!align)
        return malloc(bytes);
    return aligned_alloc(align, (bytes + align - 1) / align * align);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_onednn_matmul M N K [BLOCKS ...]\n");
        return 2;
    }
    int64_t m = atoll(argv[1]), n = atoll(argv[2]), k = atoll(argv[3]);
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    /* ALIGN 0: malloc's own alignment (16 bytes past a page for large blocks) */
    const char *align_text = getenv("ALIGN");
    size_t align = align_text ? (size_t)atoll(align_text) : 64;
    float *x = alloc_floats((size_t)(m * k), align), *w = alloc_floats((size_t)(k * n), align),
          *y = alloc_floats((size_t)(m * n), align);
    if (m < 1 || n < 1 || k < 1 || !x || !w || !y || dnnl_engine_create(&eng, dnnl_cpu, 0) ||
        dnnl_stream_create(&stream, eng, dnnl_stream_default_flags))
        return 1;
    for (int64_t i = 0; i < m * k; i++)
        x[i] = (float)(i % 7) * 0.1f;
    for (int64_t i = 0; i < k * n; i++)
        w[i] = (float)(i % 5) * 0.1f;
    int default_counts[] = {1, 2, 4, 8}, n_counts = argc > 4 ? argc - 4 : 4;
    for (int c = 0; c < n_counts; c++) {
        int blocks = argc > 4 ? atoi(argv[4 + c]) : default_counts[c];
        if (blocks < 1 || blocks > MAX_BLOCKS || n % blocks != 0)
            continue;
        block b[MAX_BLOCKS];
        int64_t nc = n / blocks;
        for (int i = 0; i < blocks; i++)
            if (block_make(eng, stream, m, n, k, i * nc, nc, x, w, y, &b[i]))
                return 1;
        double t[RUNS + 1];
        for (int r = 0; r <= RUNS; r++) { /* run 0 warms up */
            double t0 = now_ms();
            for (int i = 0; i < blocks; i++)
                dnnl_primitive_execute(b[i].prim, stream, 3, b[i].args);
            dnnl_stream_wait(stream);
            t[r] = now_ms() - t0;
        }
        qsort(t + 1, RUNS, sizeof(double), cmp);
        double median = t[1 + RUNS / 2];
        printf("M %lld N %lld K %lld in %d block(s): median %.2f ms, least %.2f, %.1f GFLOP/s\n",
               (long long)m, (long long)n, (long long)k, blocks, median, t[1],
               2.0 * (double)(m * n * k) / median / 1e6);
        for (int i = 0; i < blocks; i++)
            dnnl_primitive_destroy(b[i].prim);
    }
    return 0;
}
