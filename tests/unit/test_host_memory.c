/* Host memory of a model and its sessions: a model file with 16 MiB of weights whose
 * raw_data lies misaligned in the file (as torch.onnx.export writes them) is loaded without
 * a second copy of the weights (heap growth < a fifth of them), and a session on the CPU and
 * on the Vulkan device, with the caller's model destroyed, adds less than a fifth of them to
 * vkml's own heap (device memory, which lavapipe takes from the heap, not counted), beside
 * one packed copy where the CPU device's MatMul runs on a kernel library (oneDNN packs
 * constant weights once), and computes Y = X W exactly as a double-precision reference
 * does. A second session of the model adds less than a fifth of the weights: the packed
 * copy, as the device copy, is shared. */
#include "testutil.h"

#include <malloc.h>
#include <math.h>
#include <unistd.h>

enum { K = 1024, N = 4096 }; /* W: K x N floats, 16 MiB */
#define WEIGHT_BYTES ((size_t)K * N * sizeof(float))
/* The bound: a fifth of the weights, plus room for the graph, plans and kernels' tables. */
#define HEAP_BOUND (WEIGHT_BYTES / 5 + (2u << 20))

/* A growable buffer of protobuf wire bytes. */
typedef struct pb {
    uint8_t *p;
    size_t n, cap;
} pb;

static void pb_raw(pb *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        CHECK(b->p != NULL, "out of memory");
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void pb_varint(pb *b, uint64_t v)
{
    do {
        uint8_t byte = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
        pb_raw(b, &byte, 1);
        v >>= 7;
    } while (v);
}

static void pb_int(pb *b, int field, uint64_t v)
{
    pb_varint(b, (uint64_t)field << 3);
    pb_varint(b, v);
}

static void pb_bytes(pb *b, int field, const void *data, size_t n)
{
    pb_varint(b, (uint64_t)field << 3 | 2);
    pb_varint(b, n);
    pb_raw(b, data, n);
}

static void pb_str(pb *b, int field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

/* Moves a finished message into b as field `field`. */
static void pb_msg(pb *b, int field, pb *m)
{
    pb_bytes(b, field, m->p, m->n);
    free(m->p);
    memset(m, 0, sizeof(*m));
}

static float weight(size_t k, size_t n)
{
    return (float)((k * 7 + n * 13) % 61) / 61.0f - 0.5f;
}

/* ValueInfoProto of a float tensor [1, d]. */
static void value_info(pb *graph, int field, const char *name, int64_t d)
{
    pb dim1 = {0}, dim2 = {0}, shape = {0}, tensor = {0}, type = {0}, vi = {0};
    pb_int(&dim1, 1, 1);
    pb_int(&dim2, 1, (uint64_t)d);
    pb_msg(&shape, 1, &dim1);
    pb_msg(&shape, 1, &dim2);
    pb_int(&tensor, 1, 1); /* FLOAT */
    pb_msg(&tensor, 2, &shape);
    pb_msg(&type, 1, &tensor);
    pb_str(&vi, 1, name);
    pb_msg(&vi, 2, &type);
    pb_msg(graph, field, &vi);
}

/* ModelProto of Y = MatMul(X [1, K], W [K, N]); the graph's name pads W's raw_data to an
 * address that is not a multiple of 4 in the file. Returns the file's bytes. */
static pb make_model(void)
{
    float *w = malloc(WEIGHT_BYTES);
    CHECK(w != NULL, "out of memory");
    for (size_t k = 0; k < K; k++)
        for (size_t n = 0; n < N; n++)
            w[k * N + n] = weight(k, n);
    for (int pad = 1;; pad++) {
        pb model = {0}, graph = {0}, node = {0}, init = {0}, opset = {0};
        char name[16] = "gggggggggggggg";
        name[pad % 8 + 1] = '\0';
        pb_str(&node, 1, "X");
        pb_str(&node, 1, "W");
        pb_str(&node, 2, "Y");
        pb_str(&node, 4, "MatMul");
        pb_msg(&graph, 1, &node);
        pb_str(&graph, 2, name);
        pb_int(&init, 1, K);
        pb_int(&init, 1, N);
        pb_int(&init, 2, 1); /* FLOAT */
        pb_str(&init, 8, "W");
        size_t raw_at = init.n + 4; /* tag (1 byte) and length (3 bytes) */
        pb_bytes(&init, 9, w, WEIGHT_BYTES);
        size_t init_at = graph.n + 4; /* tag and length of the initializer */
        pb_msg(&graph, 5, &init);
        value_info(&graph, 11, "X", K);
        value_info(&graph, 12, "Y", N);
        pb_int(&model, 1, 8); /* ir_version */
        pb_int(&opset, 2, 17);
        pb_msg(&model, 8, &opset);
        size_t graph_at = model.n + 5;
        pb_msg(&model, 7, &graph);
        if ((graph_at + init_at + raw_at) % 4 != 0) {
            free(w);
            return model;
        }
        free(model.p);
    }
}

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* Whether the CPU device packs MatMul's constant B (a library kernel: vkml_op_kernel). */
static bool cpu_packs_weights(void)
{
    for (size_t i = 0; i < vkml_op_count(); i++)
        if (strcmp(vkml_op(i)->name, "MatMul") == 0)
            return vkml_op(i)->kernels[0].library[0] != '\0';
    return false;
}

/* A session on `device` of the model at `path`, with the model destroyed before the runs;
 * and a second session of it. */
static void check_session(vkml_context *ctx, const char *path, int device)
{
    vkml_error err = {0};
    vkml_model *model = NULL;
    vkml_session *s = NULL;
    CHECK_OK(vkml_model_load_file(path, &model, &err), &err);
    if (!model)
        return;
    vkml_vk_counts vk0, vk1;
    vkml_debug_vk_counts(&vk0);
    size_t before = heap_in_use();
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, model, &params, &s, &err), &err);
    if (!s) {
        vkml_model_destroy(&model);
        return;
    }
    size_t before_second = heap_in_use();
    vkml_session *s2 = NULL;
    CHECK_OK(vkml_session_create(ctx, model, &params, &s2, &err), &err);
    vkml_model_destroy(&model);
    int64_t second = (int64_t)heap_in_use() - (int64_t)before_second;
    printf("device %d: a second session: heap +%.1f MiB\n", device, (double)second / (1 << 20));
    vkml_session_destroy(&s2);
    CHECK(second < (int64_t)HEAP_BOUND,
          "device %d: a second session of the model added %.1f MiB to the heap", device,
          (double)second / (1 << 20));
    static float x[K], y[N];
    for (int k = 0; k < K; k++)
        x[k] = (float)(k % 5) - 2.0f;
    vkml_tensor in = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {1, K}, .data = x, .size = sizeof(x)};
    vkml_tensor out = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 2, .dims = {1, N}, .data = y, .size = sizeof(y)};
    for (int r = 0; r < 2; r++) {
        for (int n = 0; n < N; n++)
            y[n] = NAN;
        CHECK_OK(vkml_session_run(s, &in, 1, &out, 1, &err), &err);
    }
    vkml_debug_vk_counts(&vk1);
    /* Device memory (host memory on lavapipe, taken from its heap) is the device's. */
    int64_t device_bytes = vk1.memory_bytes - vk0.memory_bytes;
    int64_t grown =
        (int64_t)heap_in_use() - (int64_t)before - (device_bytes > 0 ? device_bytes : 0);
    printf("device %d: heap +%.1f MiB beyond %.1f MiB of device memory (bound %.1f MiB)\n", device,
           (double)grown / (1 << 20), (double)device_bytes / (1 << 20),
           (double)HEAP_BOUND / (1 << 20));
    int64_t packed = device == VKML_DEVICE_CPU && cpu_packs_weights() ? (int64_t)WEIGHT_BYTES : 0;
    CHECK(grown < (int64_t)HEAP_BOUND + packed,
          "device %d: the session added %.1f MiB to the heap for %.1f MiB of weights", device,
          (double)grown / (1 << 20), (double)WEIGHT_BYTES / (1 << 20));
    int bad = 0;
    for (int n = 0; n < N; n++) {
        double ref = 0;
        for (int k = 0; k < K; k++)
            ref += (double)x[k] * weight((size_t)k, (size_t)n);
        bad += !(fabs(y[n] - ref) <= 1e-4 * K);
        if (bad == 1 && !(fabs(y[n] - ref) <= 1e-4 * K))
            fprintf(stderr, "device %d: Y[%d] = %g, reference %g\n", device, n, y[n], ref);
    }
    CHECK(bad == 0, "device %d: %d of %d outputs differ from the reference", device, bad, N);
    vkml_session_destroy(&s);
}

int main(void)
{
    char path[] = "/tmp/vkml_host_memory_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    pb model = make_model();
    CHECK(write(fd, model.p, model.n) == (ssize_t)model.n, "writing %s", path);
    close(fd);
    free(model.p);

    /* The load: the file's bytes (not heap) and no copy of the misaligned weight. */
    vkml_error err = {0};
    vkml_model *m = NULL;
    size_t before = heap_in_use();
    CHECK_OK(vkml_model_load_file(path, &m, &err), &err);
    int64_t grown = (int64_t)heap_in_use() - (int64_t)before;
    printf("load: heap +%.1f MiB for %.1f MiB of weights\n", (double)grown / (1 << 20),
           (double)WEIGHT_BYTES / (1 << 20));
    CHECK(grown < (int64_t)HEAP_BOUND,
          "loading added %lld bytes to the heap (a copy of the weights?)", (long long)grown);
    vkml_model_destroy(&m);

    vkml_context *ctx = NULL;
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (ctx)
        check_session(ctx, path, VKML_DEVICE_CPU);
    if (ctx && vkml_context_device_count(ctx) > 0)
        check_session(ctx, path, 0);
    else
        test_skip_gpu_part();
    vkml_context_destroy(&ctx);
    unlink(path);
    return test_finish("test_host_memory");
}
