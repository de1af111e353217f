/* mnist-8 from the corpus through the public model API and the .pb tensor reader. */
#include "testutil.h"

#include <unistd.h>

static void check_mnist_model(const vkml_model *m)
{
    CHECK(vkml_model_opset(m) == 8, "opset %lld", (long long)vkml_model_opset(m));
    CHECK(vkml_model_input_count(m) == 1, "%zu inputs", vkml_model_input_count(m));
    CHECK(vkml_model_output_count(m) == 1, "%zu outputs", vkml_model_output_count(m));
    const vkml_tensor_info *in = vkml_model_input(m, 0);
    const vkml_tensor_info *out = vkml_model_output(m, 0);
    CHECK(in && strcmp(in->name, "Input3") == 0, "input name %s", in ? in->name : "-");
    CHECK(in && in->dtype == VKML_DTYPE_FLOAT && in->rank == 4, "input type");
    CHECK(in && in->dims[0] == 1 && in->dims[1] == 1 && in->dims[2] == 28 && in->dims[3] == 28,
          "input dims");
    CHECK(out && strcmp(out->name, "Plus214_Output_0") == 0, "output %s", out ? out->name : "-");
    CHECK(out && out->dtype == VKML_DTYPE_FLOAT && out->rank == 2 && out->dims[0] == 1 &&
              out->dims[1] == 10,
          "output type");
    CHECK(vkml_model_input(m, 1) == NULL && vkml_model_output(m, 1) == NULL, "out of range");
    CHECK(vkml_model_node_count(m) == 12, "%zu nodes", vkml_model_node_count(m));
    /* Topological order: the first Conv comes before every MatMul, the last node is Add. */
    int convs = 0, matmuls = 0, first_conv = -1, first_matmul = -1;
    vkml_node_info info;
    vkml_error err = {0};
    for (size_t i = 0; i < vkml_model_node_count(m); i++) {
        CHECK_OK(vkml_model_node(m, i, &info, &err), &err);
        CHECK(info.domain && info.domain[0] == '\0', "domain '%s'", info.domain);
        if (strcmp(info.op_type, "Conv") == 0 && convs++ == 0)
            first_conv = (int)i;
        if (strcmp(info.op_type, "MatMul") == 0 && matmuls++ == 0)
            first_matmul = (int)i;
    }
    CHECK(convs == 2 && matmuls == 1, "%d convs, %d matmuls", convs, matmuls);
    CHECK(first_conv >= 0 && first_conv < first_matmul, "order %d %d", first_conv, first_matmul);
    CHECK_OK(vkml_model_node(m, 11, &info, &err), &err);
    CHECK(strcmp(info.op_type, "Add") == 0 && strcmp(info.name, "Plus214") == 0, "last node %s %s",
          info.op_type, info.name);
    CHECK(vkml_model_node(m, 12, &info, &err) == VKML_ERROR_INVALID_ARGUMENT && err.message[0],
          "node 12 must not exist");
}

static void test_load_file(const char *path)
{
    vkml_model *m = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_file(path, &m, &err), &err);
    if (m)
        check_mnist_model(m);
    vkml_model_destroy(&m);
    CHECK(m == NULL, "destroy clears the pointer");
    vkml_model_destroy(&m); /* NULL is fine */
}

static void test_load_memory(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return;
    static unsigned char bytes[1 << 20];
    size_t size = fread(bytes, 1, sizeof(bytes), f);
    fclose(f);
    vkml_model *m = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_model_load_memory(bytes, size, NULL, &m, &err), &err);
    /* The model must not depend on the caller's bytes. */
    memset(bytes, 0xa5, size);
    if (m)
        check_mnist_model(m);
    vkml_model_destroy(&m);
}

static void test_pb(const char *dir)
{
    char path[4096];
    vkml_tensor t;
    char *name = NULL;
    vkml_error err = {0};
    snprintf(path, sizeof(path), "%s/models/mnist-8/test_data_set_0/input_0.pb", dir);
    CHECK_OK(vkml_tensor_read_file(path, &t, &name, &err), &err);
    CHECK(t.dtype == VKML_DTYPE_FLOAT && t.rank == 4 && t.dims[0] == 1 && t.dims[1] == 1 &&
              t.dims[2] == 28 && t.dims[3] == 28 && t.size == 28 * 28 * 4,
          "input_0 shape");
    CHECK(name && name[0] == '\0', "input_0 has an empty name, got '%s'", name ? name : "(null)");
    if (t.data && t.size == 28 * 28 * 4) {
        const float *x = t.data;
        double sum = 0;
        for (int i = 0; i < 28 * 28; i++)
            sum += x[i];
        CHECK(x[150] == 150.0f && x[151] == 254.0f && x[152] == 250.0f && x[157] == 255.0f &&
                  x[159] == 6.0f,
              "input_0 values %g %g %g %g %g", x[150], x[151], x[152], x[157], x[159]);
        CHECK(sum == 40028.0, "input_0 sum %g", sum);
    }
    free(name);
    vkml_tensor_release(&t);
    CHECK(t.data == NULL, "release clears data");

    snprintf(path, sizeof(path), "%s/models/mnist-8/test_data_set_0/output_0.pb", dir);
    CHECK_OK(vkml_tensor_read_file(path, &t, NULL, &err), &err);
    CHECK(t.dtype == VKML_DTYPE_FLOAT && t.rank == 2 && t.dims[0] == 1 && t.dims[1] == 10,
          "output_0 shape");
    if (t.data && t.size == 40) {
        const float *y = t.data;
        CHECK(fabsf(y[0] - 975.6701f) < 1e-3f && fabsf(y[2] - 6574.5684f) < 1e-3f &&
                  fabsf(y[9] + 1439.5316f) < 1e-3f,
              "output_0 values %g %g %g", y[0], y[2], y[9]);
    }
    vkml_tensor_release(&t);
}

static void test_missing_and_empty(void)
{
    vkml_model *m = NULL;
    vkml_error err = {0};
    const char *missing = "/nonexistent/vkml/model.onnx";
    CHECK(vkml_model_load_file(missing, &m, &err) == VKML_ERROR_IO && !m, "missing file");
    CHECK(strstr(err.message, missing) != NULL, "message names the path: %s", err.message);

    char empty[] = "/tmp/vkml-empty-XXXXXX";
    int fd = mkstemp(empty);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        close(fd);
        err.message[0] = '\0';
        CHECK(vkml_model_load_file(empty, &m, &err) == VKML_ERROR_INVALID_MODEL && !m,
              "empty file");
        CHECK(strstr(err.message, empty) && strstr(err.message, "empty"), "%s", err.message);
        vkml_tensor t;
        CHECK(vkml_tensor_read_file(empty, &t, NULL, &err) == VKML_ERROR_INVALID_MODEL,
              "empty .pb");
        unlink(empty);
    }
    CHECK(vkml_model_load_file("/tmp", &m, &err) == VKML_ERROR_IO, "a folder is no model");
    char fifo[] = "/tmp/vkml-fifo-XXXXXX";
    int fd_fifo = mkstemp(fifo);
    if (fd_fifo >= 0) {
        close(fd_fifo);
        unlink(fifo);
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
        CHECK(vkml_model_load_file(fifo, &m, &err) == VKML_ERROR_IO && strstr(err.message, fifo),
              "a FIFO is refused without hanging: %s", err.message);
        unlink(fifo);
    }
    vkml_tensor t;
    CHECK(vkml_tensor_read_file(missing, &t, NULL, &err) == VKML_ERROR_IO &&
              strstr(err.message, missing),
          "missing .pb: %s", err.message);
    CHECK(vkml_model_load_memory("", 0, NULL, &m, &err) == VKML_ERROR_INVALID_MODEL, "no bytes");
    CHECK(vkml_model_load_file(NULL, &m, &err) == VKML_ERROR_INVALID_ARGUMENT, "NULL path");
    CHECK(vkml_model_input_count(NULL) == 0 && vkml_model_node_count(NULL) == 0, "NULL model");
}

int main(void)
{
    /* The file's nodes as the loader reads them (epilogue fusion would make the last Add
     * part of the MatMul; tests/unit/test_fuse_epilogue.c tests that). */
    setenv("VKML_NO_FUSE", "1", 1);
    const char *dir = test_corpus_dir();
    char path[4096];
    test_corpus_path(path, sizeof(path), "models/mnist-8/model.onnx");
    test_load_file(path);
    test_load_memory(path);
    test_pb(dir);
    test_missing_and_empty();
    return test_finish("test_onnx_mnist");
}
