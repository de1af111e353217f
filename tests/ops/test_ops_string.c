/* String tensors end to end through the public API: StringNormalizer (case change with
 * non-ASCII letters, stop words with and without case, the empty-output rule, [C] and
 * [1, C]), StringConcat (broadcast, a string initializer), a normalizer feeding a concat,
 * errors, and string .pb files. Every expected string is written out here by hand. Runs on
 * the CPU device and on every Vulkan device (where the string nodes fall back to the CPU).
 * The models come from make_string_models.py (argv[1], default ./string_models). */
#include "testutil.h"

static const char *models_dir;

static vkml_model *load(const char *name, vkml_status want, const char *text)
{
    return test_load_model(models_dir, name, want, text);
}

static vkml_tensor strings(int rank, const int64_t *dims, const char **data)
{
    vkml_tensor t = {.dtype = VKML_DTYPE_STRING, .rank = rank, .data = (void *)data};
    memcpy(t.dims, dims, sizeof(int64_t) * (size_t)rank);
    t.size = vkml_tensor_element_count(rank, dims) * sizeof(char *);
    return t;
}

/* Runs a one-input one-output model and checks the output's shape and strings. */
static void check_run(vkml_session *s, const char *label, vkml_tensor in, int rank,
                      const int64_t *dims, const char *const *want)
{
    vkml_tensor out;
    vkml_error err = {0};
    CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
    vkml_status st = vkml_session_run(s, &in, 1, &out, 1, &err);
    CHECK(st == VKML_OK, "%s: run: %s", label, err.message);
    if (st != VKML_OK) {
        vkml_tensor_release(&out);
        return;
    }
    CHECK(out.dtype == VKML_DTYPE_STRING && out.rank == rank, "%s: rank %d", label, out.rank);
    for (int d = 0; d < rank && d < out.rank; d++)
        CHECK(out.dims[d] == dims[d], "%s: dim %d is %lld, expected %lld", label, d,
              (long long)out.dims[d], (long long)dims[d]);
    size_t n = vkml_tensor_element_count(rank, dims);
    const char *const *got = out.data;
    for (size_t i = 0; i < n && out.rank == rank; i++)
        CHECK(got[i] && strcmp(got[i], want[i]) == 0, "%s: [%zu] is '%s', expected '%s'", label, i,
              got[i] ? got[i] : "(null)", want[i]);
    vkml_tensor_release(&out);
}

static vkml_session *session(vkml_context *ctx, vkml_model *m, int device)
{
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_session_params params = {.device = device};
    CHECK_OK(vkml_session_create(ctx, m, &params, &s, &err), &err);
    return s;
}

static void test_normalizer(vkml_context *ctx, int device)
{
    vkml_model *m = load("strnorm_lower.onnx", VKML_OK, NULL);
    vkml_session *s = m ? session(ctx, m, device) : NULL;
    if (s) {
        const char *in[] = {"The", "Café", "à", "ÉCOLE", "Straße"};
        const char *want[] = {"café", "école", "straße"};
        check_run(s, "lower, stop words THE and À without case", strings(1, (int64_t[]){5}, in), 1,
                  (int64_t[]){3}, want);
        /* A second run: new strings, new extent. */
        const char *in2[] = {"ÀÉÎ", "the", "THE", "Ωmega", "x"};
        const char *want2[] = {"àéî", "ωmega", "x"};
        check_run(s, "lower, second run", strings(1, (int64_t[]){5}, in2), 1, (int64_t[]){3},
                  want2);
        /* Not UTF-8: a clear error, then the session still runs. */
        const char *bad[] = {"ok", "\xff", "a", "b", "c"};
        vkml_tensor t = strings(1, (int64_t[]){5}, bad), out;
        vkml_error err = {0};
        CHECK_OK(vkml_session_alloc_output(s, 0, &out, &err), &err);
        vkml_status st = vkml_session_run(s, &t, 1, &out, 1, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT && strstr(err.message, "UTF-8"),
              "invalid UTF-8: %s: %s", vkml_status_name(st), err.message);
        bad[1] = NULL;
        st = vkml_session_run(s, &t, 1, &out, 1, &err);
        CHECK(st == VKML_ERROR_INVALID_ARGUMENT && strstr(err.message, "NULL"),
              "NULL string: %s: %s", vkml_status_name(st), err.message);
        vkml_tensor_release(&out);
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);

    m = load("strnorm_upper_2d.onnx", VKML_OK, NULL);
    s = m ? session(ctx, m, device) : NULL;
    if (s) {
        const char *in[] = {"monday", "Monday", "é"};
        const char *want[] = {"MONDAY", "É"};
        check_run(s, "upper [1, C], case-sensitive stop word", strings(2, (int64_t[]){1, 3}, in), 2,
                  (int64_t[]){1, 2}, want);
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);

    m = load("strnorm_all_stop.onnx", VKML_OK, NULL);
    s = m ? session(ctx, m, device) : NULL;
    if (s) {
        const char *in[] = {"a", "A"};
        const char *want[] = {""};
        check_run(s, "every word a stop word", strings(2, (int64_t[]){1, 2}, in), 2,
                  (int64_t[]){1, 1}, want);
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

static void test_concat(vkml_context *ctx, int device)
{
    vkml_model *m = load("strnorm_concat.onnx", VKML_OK, NULL);
    vkml_session *s = m ? session(ctx, m, device) : NULL;
    if (s) {
        const char *in[] = {"A", "B", "Ç"};
        const char *want[] = {"aa", "çç"};
        check_run(s, "normalizer then concat", strings(1, (int64_t[]){3}, in), 1, (int64_t[]){2},
                  want);
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);

    m = load("concat_const.onnx", VKML_OK, NULL);
    s = m ? session(ctx, m, device) : NULL;
    if (s) {
        const char *in[] = {"hé", ""};
        const char *want[] = {"hé!", "!"};
        check_run(s, "concat with a string initializer", strings(1, (int64_t[]){2}, in), 1,
                  (int64_t[]){2}, want);
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

static void test_errors(vkml_context *ctx)
{
    vkml_model *m = load("strnorm_bad_action.onnx", VKML_ERROR_INVALID_MODEL, "TITLE");
    vkml_model_destroy(&m);
    m = load("strnorm_bad_locale.onnx", VKML_ERROR_UNSUPPORTED, "tr_TR");
    vkml_model_destroy(&m);
    m = load("strnorm_float.onnx", VKML_OK, NULL);
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_session_params params = {.device = VKML_DEVICE_CPU};
    vkml_status st = m ? vkml_session_create(ctx, m, &params, &s, &err) : VKML_OK;
    CHECK(!m || (st == VKML_ERROR_INVALID_MODEL && strstr(err.message, "not string")),
          "float input: %s: %s", vkml_status_name(st), err.message);
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

static vkml_status read_bytes(const char *name, unsigned char *buf, size_t cap, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", models_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return VKML_ERROR_IO;
    *size = fread(buf, 1, cap, f);
    fclose(f);
    return VKML_OK;
}

static void test_pb(void)
{
    char path[4096], *name = NULL;
    vkml_tensor t;
    vkml_error err = {0};
    snprintf(path, sizeof(path), "%s/words.pb", models_dir);
    vkml_status st = vkml_tensor_read_file(path, &t, &name, &err);
    CHECK(st == VKML_OK, "words.pb: %s", err.message);
    if (st == VKML_OK) {
        const char *want[] = {"héllo", "", "a b", "的"};
        const char *const *got = t.data;
        CHECK(t.dtype == VKML_DTYPE_STRING && t.rank == 2 && t.dims[0] == 2 && t.dims[1] == 2 &&
                  t.size == 4 * sizeof(char *) && strcmp(name, "words") == 0,
              "words.pb: dtype %d rank %d size %zu", t.dtype, t.rank, t.size);
        for (int i = 0; i < 4 && t.size == 4 * sizeof(char *); i++)
            CHECK(strcmp(got[i], want[i]) == 0, "words.pb [%d]: '%s'", i, got[i]);
    }
    vkml_tensor_release(&t);
    free(name);

    static const struct {
        const char *file;
        vkml_status status;
        const char *text;
    } bad[] = {{"count_mismatch.pb", VKML_ERROR_INVALID_MODEL, "string_data"},
               {"nul.pb", VKML_ERROR_UNSUPPORTED, "NUL"}};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        snprintf(path, sizeof(path), "%s/%s", models_dir, bad[k].file);
        st = vkml_tensor_read_file(path, &t, NULL, &err);
        CHECK(st == bad[k].status && strstr(err.message, bad[k].text), "%s: %s: %s", bad[k].file,
              vkml_status_name(st), err.message);
    }

    /* words.pb cut inside its strings: every prefix is refused or read whole, no crash. */
    unsigned char bytes[256];
    size_t size = 0;
    CHECK(read_bytes("words.pb", bytes, sizeof(bytes), &size) == VKML_OK, "words.pb unread");
    size_t refused = 0;
    for (size_t cut = 0; cut < size; cut++) {
        if (vkml_tensor_read_memory(bytes, cut, &t, NULL, &err) != VKML_OK)
            refused++;
        vkml_tensor_release(&t);
    }
    CHECK(refused >= 8, "only %zu of %zu truncations refused", refused, size);
}

int main(int argc, char **argv)
{
    /* meson passes the folder; run by hand (or by .ci/device-check.sh) from the test's
     * build folder, it is ./string_models. */
    models_dir = argc > 1 ? argv[1] : "string_models";
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(NULL, &ctx, &err), &err);
    if (!ctx)
        return test_finish("ops_string");
    test_pb();
    test_errors(ctx);
    TEST_FOR_EACH_DEVICE(t, ctx) {
        test_normalizer(ctx, t.device);
        test_concat(ctx, t.device);
    }
    vkml_context_destroy(&ctx);
    return test_finish("ops_string");
}
