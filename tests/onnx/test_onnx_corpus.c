/* Every model of the ONNX node tests and the other onnx test folders in the corpus loads
 * as a graph (or is refused as UNSUPPORTED with a reason, never as invalid), and every
 * input_K.pb / output_K.pb of a tensor-typed input or output reads back with the element
 * type and rank the model declares. */
#include "testutil.h"

#include "onnx/model.h"

#include <dirent.h>

typedef struct totals {
    int models, loaded, unsupported, tensors, tensors_ok;
} totals;

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = len > 0 ? malloc((size_t)len) : NULL;
    *size = bytes ? fread(bytes, 1, (size_t)len, f) : 0;
    fclose(f);
    return bytes;
}

/* Checks dir/test_data_set_0/<prefix>_K.pb against the declared values. */
static void check_pbs(const char *dir, const char *prefix, const graph *g, const int *values,
                      int count, totals *t)
{
    for (int k = 0; k < count; k++) {
        const graph_value *v = &g->values[values[k]];
        if (v->dtype == VKML_DTYPE_UNDEFINED || v->dtype == VKML_DTYPE_STRING)
            continue; /* sequences, maps, optionals and strings are not host tensors */
        char *path = NULL;
        struct stat st;
        if (asprintf(&path, "%s/test_data_set_0/%s_%d.pb", dir, prefix, k) < 0)
            continue;
        if (stat(path, &st) != 0) {
            free(path); /* an optional input the test leaves out */
            continue;
        }
        vkml_tensor tensor;
        vkml_error err = {0};
        t->tensors++;
        vkml_status s = vkml_tensor_read_file(path, &tensor, NULL, &err);
        if (s == VKML_OK) {
            bool ok = tensor.dtype == v->dtype && (v->rank < 0 || tensor.rank == v->rank);
            CHECK(ok, "%s: %s rank %d, the model declares %s rank %d", path,
                  vkml_dtype_name(tensor.dtype), tensor.rank, vkml_dtype_name(v->dtype), v->rank);
            t->tensors_ok += ok;
            vkml_tensor_release(&tensor);
        } else {
            CHECK(s == VKML_ERROR_UNSUPPORTED, "%s: %s", path, err.message);
        }
        free(path);
    }
}

static void check_test_dir(const char *dir, totals *t)
{
    char *path = NULL;
    size_t size = 0;
    unsigned char *bytes = asprintf(&path, "%s/model.onnx", dir) < 0 ? NULL : read_all(path, &size);
    if (!bytes) {
        free(path);
        return;
    }
    t->models++;
    graph *g = NULL;
    vkml_error err = {0};
    vkml_status s = onnx_load_graph(bytes, size, dir, false, &g, &err);
    free(bytes);
    if (s == VKML_OK) {
        t->loaded++;
        check_pbs(dir, "input", g, g->inputs, g->n_inputs, t);
        check_pbs(dir, "output", g, g->outputs, g->n_outputs, t);
    } else {
        /* The only refusals: element types vkml lacks (float8, int4, ...). */
        t->unsupported += s == VKML_ERROR_UNSUPPORTED;
        CHECK(s == VKML_ERROR_UNSUPPORTED && strstr(err.message, "element type"), "%s: %s: %s",
              path, vkml_status_name(s), err.message);
        if (getenv("VKML_TEST_VERBOSE"))
            fprintf(stderr, "%s: %s\n", dir, err.message);
    }
    graph_destroy(&g);
    free(path);
}

static void check_folder(const char *folder, totals *t)
{
    DIR *d = opendir(folder);
    CHECK(d != NULL, "open %s", folder);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *dir = NULL;
        if (asprintf(&dir, "%s/%s", folder, e->d_name) >= 0)
            check_test_dir(dir, t);
        free(dir);
    }
    closedir(d);
}

int main(void)
{
    static const char *const folders[] = {"onnx-node", "onnx-extra/simple",
                                          "onnx-extra/pytorch-converted",
                                          "onnx-extra/pytorch-operator"};
    totals t = {0};
    char path[4096];
    for (size_t i = 0; i < VKML_ARRAY_SIZE(folders); i++)
        check_folder(test_corpus_path(path, sizeof(path), folders[i]), &t);
    printf("%d models: %d loaded, %d unsupported; %d of %d tensors match their declarations\n",
           t.models, t.loaded, t.unsupported, t.tensors_ok, t.tensors);
    CHECK(t.models > 1800, "only %d models found", t.models);
    CHECK(t.loaded > t.models * 90 / 100, "only %d of %d models load", t.loaded, t.models);
    CHECK(t.tensors > 3000, "only %d tensors checked", t.tensors);
    return test_finish("test_onnx_corpus");
}
