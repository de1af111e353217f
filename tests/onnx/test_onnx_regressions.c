/* Every input in tests/fuzz/regressions (crashes, hangs and runaway allocations the fuzzers
 * found, fixed since): load, plan on the CPU device and, when its tensors are small, run
 * once on zeros. Each must end in success or an error with a message; never a crash, a
 * sanitizer report or a hang (the suite's timeout). .pb files go through the tensor
 * reader. */
#include "testutil.h"

#include <dirent.h>

#define RUN_MAX_BYTES ((size_t)1 << 20)

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return NULL;
    unsigned char *bytes = malloc(1 << 20);
    *size = bytes ? fread(bytes, 1, 1 << 20, f) : 0;
    fclose(f);
    return bytes;
}

static bool zeros(const vkml_tensor_info *info, vkml_tensor *t, size_t *budget)
{
    size_t bytes = vkml_tensor_element_count(info->rank, info->dims) * vkml_dtype_size(info->dtype);
    if (info->rank < 0 || bytes > *budget)
        return false;
    *budget -= bytes;
    *t = (vkml_tensor){
        .dtype = info->dtype, .rank = info->rank, .size = bytes, .data = calloc(1, bytes + 1)};
    memcpy(t->dims, info->dims, sizeof(t->dims));
    return t->data != NULL;
}

/* Runs once on zeros when inputs and outputs fit RUN_MAX_BYTES; returns whether it ran. */
static bool run_small(vkml_session *s, const char *what)
{
    vkml_tensor in[8] = {{0}}, out[8] = {{0}};
    size_t n_in = vkml_session_input_count(s), n_out = vkml_session_output_count(s);
    size_t budget = RUN_MAX_BYTES;
    bool ok = n_in <= 8 && n_out <= 8;
    for (size_t i = 0; ok && i < n_in; i++)
        ok = zeros(vkml_session_input(s, i), &in[i], &budget);
    for (size_t i = 0; ok && i < n_out; i++)
        ok = zeros(vkml_session_output(s, i), &out[i], &budget);
    if (ok) {
        vkml_error err = {0};
        vkml_status st = vkml_session_run(s, in, n_in, out, n_out, &err);
        CHECK(st == VKML_OK || err.message[0], "%s: run failed without a message", what);
    }
    for (size_t i = 0; i < 8; i++) {
        free(in[i].data);
        free(out[i].data);
    }
    return ok;
}

static void check_model(vkml_context *ctx, const unsigned char *bytes, size_t size,
                        const char *what)
{
    vkml_model *m = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_model_load_memory(bytes, size, NULL, &m, &err);
    CHECK(st == VKML_OK || err.message[0], "%s: load failed without a message", what);
    vkml_session *s = NULL;
    vkml_session_params params = {.device = VKML_DEVICE_CPU};
    if (m) {
        st = vkml_session_create(ctx, m, &params, &s, &err);
        CHECK(st == VKML_OK || err.message[0], "%s: session failed without a message", what);
    }
    bool ran = s && run_small(s, what);
    printf("%s: %s%s%s\n", what, vkml_status_name(st), st ? ": " : "", st ? err.message : "");
    if (ran)
        printf("%s: ran once on zeros\n", what);
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

static void check_tensor(const unsigned char *bytes, size_t size, const char *what)
{
    vkml_tensor t = {0};
    vkml_error err = {0};
    vkml_status st = vkml_tensor_read_memory(bytes, size, &t, NULL, &err);
    CHECK(st == VKML_OK || err.message[0], "%s: read failed without a message", what);
    printf("%s: %s %s\n", what, vkml_status_name(st), st ? err.message : "");
    vkml_tensor_release(&t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s REGRESSIONS_DIR\n", argv[0]);
        return 1;
    }
    vkml_context_params cp = {.disable_vulkan = true};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    DIR *dir = opendir(argv[1]);
    CHECK(dir != NULL, "open %s", argv[1]);
    int count = 0;
    for (struct dirent *e; dir && ctx && (e = readdir(dir));) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        size_t size = 0;
        snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
        unsigned char *bytes = read_all(path, &size);
        const char *ext = strrchr(e->d_name, '.');
        if (bytes && ext && strcmp(ext, ".pb") == 0)
            check_tensor(bytes, size, e->d_name);
        else if (bytes)
            check_model(ctx, bytes, size, e->d_name);
        free(bytes);
        count++;
    }
    if (dir)
        closedir(dir);
    CHECK(count >= 2, "%d regression inputs", count);
    vkml_context_destroy(&ctx);
    return test_finish("test_onnx_regressions");
}
