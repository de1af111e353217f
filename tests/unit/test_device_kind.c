/* A new kind of device is one implementation of device/device.h plus one registry entry:
 * a test kind ("Test": the CPU device's kernels, but only Add and Relu) added with
 * device_registry_set_extra appears as device 0 of a context, in vkml_op_info and in
 * placement, and runs its part of a model, the rest falling back to the CPU. */
#include "cpu/cpu_device.h"
#include "test_graph.h"

#include <stdatomic.h>

static const device_class *cpu_class; /* the CPU device's, which the test kind wraps */
static device_class test_class;
static atomic_int test_chunks_run;

static bool test_supports_node(device *dev, const graph_value *values, const graph_node *n,
                               char *why, size_t why_size)
{
    if (strcmp(n->op_type, "Add") != 0 && strcmp(n->op_type, "Relu") != 0) {
        snprintf(why, why_size, "the test kind runs Add and Relu only");
        return false;
    }
    return cpu_class->supports_node(dev, values, n, why, why_size);
}

static vkml_status test_chunk_submit(device_session *ds, int chunk, device_event *done,
                                     vkml_error *err)
{
    atomic_fetch_add_explicit(&test_chunks_run, 1, memory_order_relaxed);
    return cpu_class->chunk_submit(ds, chunk, done, err);
}

static vkml_status test_open(const vkml_context_params *params, void **handle, vkml_error *err)
{
    (void)params;
    device *dev = cpu_device_create();
    if (!dev)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory");
    cpu_class = dev->cls;
    test_class = *cpu_class;
    test_class.name = "test";
    test_class.supports_node = test_supports_node;
    test_class.chunk_submit = test_chunk_submit;
    dev->cls = &test_class;
    dev->info.type = VKML_DEVICE_TYPE_OTHER;
    snprintf(dev->info.name, sizeof(dev->info.name), "test device");
    *handle = dev;
    return VKML_OK;
}

static int test_count(const void *handle)
{
    return handle ? 1 : 0;
}

static device *test_get(void *handle, int i)
{
    return i == 0 ? handle : NULL;
}

static void test_close(void **handle)
{
    device *dev = *handle;
    if (dev)
        dev->cls->destroy(dev);
    *handle = NULL;
}

static bool test_kernel_for(const op_def *op, uint32_t *dtypes)
{
    bool has = strcmp(op->name, "Add") == 0 || strcmp(op->name, "Relu") == 0;
    *dtypes = has ? DT(FLOAT) : 0;
    return has;
}

static const device_kind test_kind = {
    .name = "Test",
    .open = test_open,
    .count = test_count,
    .get = test_get,
    .close = test_close,
    .kernel_for = test_kernel_for,
};

/* x + c -> Relu -> Sigmoid -> + c: the test device (the first of the set) runs both Adds
 * and the Relu, the CPU the Sigmoid, with transfers in between. */
static vkml_model *make_model(void)
{
    uint64_t seed = 7;
    graph *g = graph_create();
    int64_t dims[2] = {3, 5};
    int x = tg_value(g, "x", VKML_DTYPE_FLOAT, 2, dims);
    int c = tg_random_constant(g, "c", 2, dims, -1.0f, 1.0f, &seed);
    int a = tg_value(g, "a", VKML_DTYPE_FLOAT, 2, dims);
    int r = tg_value(g, "r", VKML_DTYPE_FLOAT, 2, dims);
    int s = tg_value(g, "s", VKML_DTYPE_FLOAT, 2, dims);
    int y = tg_value(g, "y", VKML_DTYPE_FLOAT, 2, dims);
    tg_node(g, "add", "Add", x, c, a, 13);
    tg_node(g, "relu", "Relu", a, -1, r, 13);
    tg_node(g, "sigmoid", "Sigmoid", r, -1, s, 13);
    tg_node(g, "add2", "Add", s, c, y, 13);
    return tg_model(g, &x, 1, &y, 1, 13);
}

static void check_op_info(void)
{
    const vkml_op_info *add = NULL, *sigmoid = NULL;
    for (size_t i = 0; i < vkml_op_count(); i++) {
        const vkml_op_info *op = vkml_op(i);
        if (!op->domain[0] && strcmp(op->name, "Add") == 0)
            add = op;
        if (!op->domain[0] && strcmp(op->name, "Sigmoid") == 0)
            sigmoid = op;
    }
    CHECK(add && sigmoid, "Add and Sigmoid in the op table");
    int last = add->n_kernels - 1;
    CHECK(add->n_kernels == 3 && strcmp(add->kernels[0].device_kind, "CPU") == 0 &&
              strcmp(add->kernels[last].device_kind, "Test") == 0,
          "kinds: %d, the last %s", add->n_kernels, add->kernels[last].device_kind);
    CHECK(add->kernels[last].present && strcmp(add->kernels[last].dtypes, "float") == 0,
          "the test kind's Add kernel: %s", add->kernels[last].dtypes);
    CHECK(!sigmoid->kernels[last].present, "no Sigmoid kernel on the test kind");
}

int main(void)
{
    device_registry_set_extra(&test_kind);
    check_op_info();
    vkml_error err = {0};
    vkml_context *ctx = NULL;
    vkml_context_params cp = {.disable_vulkan = true};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    CHECK(vkml_context_device_count(ctx) == 1, "devices: %d", vkml_context_device_count(ctx));
    vkml_device_info info;
    CHECK_OK(vkml_context_device_info(ctx, 0, &info, &err), &err);
    CHECK(info.index == 0 && info.type == VKML_DEVICE_TYPE_OTHER &&
              strcmp(info.name, "test device") == 0,
          "device 0: %s, index %d", info.name, info.index);

    vkml_model *model = make_model();
    vkml_session *s = NULL;
    vkml_session_params sp = {.device = 0, .no_fuse = true}; /* nodes as they are */
    CHECK_OK(vkml_session_create(ctx, model, &sp, &s, &err), &err);
    CHECK(vkml_session_plan_part_count(s) == 2, "parts: %zu", vkml_session_plan_part_count(s));
    vkml_plan_part part;
    CHECK(vkml_session_plan_part(s, 0, &part) && part.device == 0 && part.n_nodes == 3,
          "test device part: device %d, %zu nodes", part.device, part.n_nodes);
    CHECK(vkml_session_plan_part(s, 1, &part) && part.device == VKML_DEVICE_CPU &&
              part.n_nodes == 1,
          "CPU part: device %d, %zu nodes", part.device, part.n_nodes);

    float x[15];
    uint64_t seed = 11;
    for (int i = 0; i < 15; i++)
        x[i] = test_randf(&seed, -2.0f, 2.0f);
    size_t n_y = 0;
    float *y = tg_run_session(s, x, 15, &n_y);
    CHECK(y && n_y == 15, "output of %zu values", n_y);
    CHECK(atomic_load(&test_chunks_run) == 2, "the test device ran %d chunks",
          atomic_load(&test_chunks_run));

    /* The reference: the same model on the CPU device alone. */
    vkml_session *ref = NULL;
    vkml_session_params rp = {.device = VKML_DEVICE_CPU};
    CHECK_OK(vkml_session_create(ctx, model, &rp, &ref, &err), &err);
    size_t n_ref = 0;
    float *want = tg_run_session(ref, x, 15, &n_ref);
    for (size_t i = 0; want && y && i < n_y; i++)
        CHECK(y[i] == want[i], "y[%zu] = %g, want %g", i, y[i], want[i]);
    free(y);
    free(want);
    vkml_session_destroy(&s);
    vkml_session_destroy(&ref);
    vkml_model_destroy(&model);
    vkml_context_destroy(&ctx);
    device_registry_set_extra(NULL);
    return test_finish("device-kind");
}
