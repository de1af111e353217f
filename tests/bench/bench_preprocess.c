/* Benchmark (not a test): a decoded frame into a detector-sized input. A 1920x1080 NV12
 * frame, letterboxed to [1,3,640,640] float by vkml_session_params.preprocess, then a
 * GlobalAveragePool (so the output copied back is 12 bytes), median host-to-host latency:
 *   A: frame bytes in (3.1 MB), pre-processing as the model's first kernel on DEVICE;
 *   B: the same model fed the float input it makes (4.9 MB) with no pre-processing
 *      (what an element converting on the host uploads), on DEVICE;
 *   C: the pre-processing alone on vkml's CPU device (the C version, one thread).
 *   bench_preprocess [DEVICE] [RUNS]   DEVICE: 0, 1 ... (default 0); RUNS (default 100) */
#include "bench_util.h"

#define FRAME_W 1920
#define FRAME_H 1080
#define SIDE 640

/* image [1,3,SIDE,SIDE] -> op -> out */
static vkml_model *model_of(const char *op)
{
    const int64_t in_dims[4] = {1, 3, SIDE, SIDE}, pooled[4] = {1, 3, 1, 1};
    bool pool = strcmp(op, "GlobalAveragePool") == 0;
    graph *g = graph_create();
    int x = bench_float_value(g, "image", 4, in_dims),
        y = bench_float_value(g, "out", 4, pool ? pooled : in_dims);
    int n = graph_add_node(g, "n", op, "", 1, 1, 0);
    g->nodes[n].inputs[0] = x;
    g->nodes[n].outputs[0] = y;
    g->nodes[n].opset = 13;
    g->values[x].kind = GRAPH_VALUE_INPUT;
    g->values[y].is_output = true;
    g->inputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->inputs[g->n_inputs++] = x;
    g->outputs = vkml_arena_calloc(g->arena, 1, sizeof(int));
    g->outputs[g->n_outputs++] = y;
    g->opset = 13;
    vkml_error err = {0};
    vkml_model *model = NULL;
    if (op_bind_node(g->arena, &g->nodes[n], &err) || graph_sort(g, &err) ||
        model_from_graph(g, &model, &err)) {
        fprintf(stderr, "bench_preprocess: %s\n", err.message);
        exit(1);
    }
    return model;
}

static double median_run(vkml_context *ctx, vkml_model *model, int device,
                         const vkml_preprocess *pp, vkml_tensor *in, int runs)
{
    vkml_session_params params = {.device = device, .preprocess = pp};
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_tensor out = {0};
    if (vkml_session_create(ctx, model, &params, &s, &err) ||
        vkml_session_alloc_output(s, 0, &out, &err)) {
        fprintf(stderr, "bench_preprocess: %s\n", err.message);
        exit(1);
    }
    double *t = calloc((size_t)runs, sizeof(double));
    for (int i = -3; i < runs; i++) {
        double t0 = bench_now_us();
        if (vkml_session_run(s, in, 1, &out, 1, &err)) {
            fprintf(stderr, "bench_preprocess: %s\n", err.message);
            exit(1);
        }
        if (i >= 0)
            t[i] = bench_now_us() - t0;
    }
    double m = bench_median(t, runs);
    free(t);
    vkml_tensor_release(&out);
    vkml_session_destroy(&s);
    return m;
}

int main(int argc, char **argv)
{
    const char *dev_text = argc > 1 ? argv[1] : "0";
    int runs = argc > 2 ? atoi(argv[2]) : 100;
    if (runs < 5)
        runs = 5;
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    int device;
    vkml_device_info info;
    if (vkml_context_create(NULL, &ctx, &err) ||
        vkml_context_parse_device(ctx, dev_text, &device, &err) ||
        vkml_context_device_info(ctx, device, &info, &err)) {
        fprintf(stderr, "bench_preprocess: %s\n", err.message);
        return 1;
    }
    uint64_t y_bytes = (uint64_t)FRAME_W * FRAME_H;
    vkml_preprocess pp = {.format = VKML_FRAME_NV12,
                          .width = FRAME_W,
                          .height = FRAME_H,
                          .plane_offsets = {0, y_bytes},
                          .plane_strides = {FRAME_W, FRAME_W},
                          .frame_bytes = y_bytes * 3 / 2,
                          .resize = VKML_RESIZE_LETTERBOX,
                          .pad_value = 114};
    size_t fbytes = (size_t)((pp.frame_bytes + 3) & ~3ull);
    uint8_t *frame = malloc(fbytes);
    uint64_t seed = 1;
    for (size_t i = 0; i < fbytes; i++)
        frame[i] = (uint8_t)test_randf(&seed, 0, 256);
    vkml_tensor frame_t = {.dtype = VKML_DTYPE_UINT8,
                           .rank = 1,
                           .dims = {(int64_t)fbytes},
                           .data = frame,
                           .size = fbytes};
    size_t n = 3 * SIDE * SIDE;
    float *image = calloc(n, sizeof(float));
    vkml_tensor image_t = {.dtype = VKML_DTYPE_FLOAT,
                           .rank = 4,
                           .dims = {1, 3, SIDE, SIDE},
                           .data = image,
                           .size = n * sizeof(float)};
    vkml_model *pool = model_of("GlobalAveragePool"), *copy = model_of("Identity");

    printf("device %d: %s; NV12 %dx%d letterboxed to [1,3,%d,%d] float, median of %d runs\n",
           device, info.name, FRAME_W, FRAME_H, SIDE, SIDE, runs);
    double a = median_run(ctx, pool, device, &pp, &frame_t, runs);
    printf("A  frame bytes in, pre-processing on the device, pool: %9.1f us\n", a);
    double b = median_run(ctx, pool, device, NULL, &image_t, runs);
    printf("B  float input in (host-converted), pool:              %9.1f us\n", b);
    double c = median_run(ctx, copy, VKML_DEVICE_CPU, &pp, &frame_t, runs < 20 ? runs : 20);
    printf("C  pre-processing alone on vkml's CPU device:          %9.1f us\n", c);
    vkml_model_destroy(&pool);
    vkml_model_destroy(&copy);
    vkml_context_destroy(&ctx);
    free(frame);
    free(image);
    return 0;
}
