/* The bad-input matrix (issue 3): each hostile model is refused with the status and a
 * message naming what is wrong, at load or at session creation on the CPU device, never
 * by a crash, an attempt to allocate it all or the OOM killer. Also NULL handles and
 * pointers to every vkml_model_* and vkml_tensor_* function. The messages are printed
 * (docs/reliability.md quotes them). */
#include "testutil.h"

static const char *models_dir;
static vkml_context *cpu;

typedef enum { AT_LOAD, AT_SESSION } stage;

typedef struct hostile_case {
    const char *model;
    stage at;
    vkml_status status;
    const char *needle;
} hostile_case;

static void check_case(const hostile_case *c)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", models_dir, c->model);
    vkml_model *m = NULL;
    vkml_session *s = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_model_load_file(path, &m, &err);
    stage at = AT_LOAD;
    if (st == VKML_OK) {
        vkml_session_params params = {.device = VKML_DEVICE_CPU};
        at = AT_SESSION;
        st = vkml_session_create(cpu, m, &params, &s, &err);
    }
    printf("%s | %s | %s | %s\n", c->model, at == AT_LOAD ? "load" : "session",
           vkml_status_name(st), st ? err.message : "");
    CHECK(st == c->status && at == c->at, "%s: %s at %s (%s), expected %s at %s", c->model,
          vkml_status_name(st), at == AT_LOAD ? "load" : "session", err.message,
          vkml_status_name(c->status), c->at == AT_LOAD ? "load" : "session");
    CHECK(st == VKML_OK || strstr(err.message, c->needle), "%s: message '%s' lacks '%s'", c->model,
          err.message, c->needle);
    CHECK(st != VKML_OK || s, "%s: a session on success", c->model);
    vkml_session_destroy(&s);
    vkml_model_destroy(&m);
}

static void test_matrix(void)
{
    static const hostile_case cases[] = {
        /* dims: overflow, absurd sizes, negative, in inputs, initializers and Reshape */
        {"hostile/input_overflow.onnx", AT_SESSION, VKML_ERROR_INVALID_MODEL,
         "graph input 'X' has an impossible shape [1099511627776,1099511627776]"},
        {"hostile/input_petabytes.onnx", AT_SESSION, VKML_ERROR_OUT_OF_MEMORY,
         "value 'X' ([1048576,1048576,1024]) needs 4503599627370496 bytes"},
        {"hostile/init_terabytes.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "raw_data holds 4 bytes, its shape and type need 4398046511104"},
        {"hostile/input_neg_dim.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "graph input 'X': dimension 1 is -3"},
        {"bad/neg_dim.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "initializer 'neg': dimension 0 is -2"},
        {"bad/huge_dims.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "shape [1099511627776,1099511627776] is too large"},
        {"hostile/reshape_neg.onnx", AT_SESSION, VKML_ERROR_INVALID_MODEL, "node 'rs' (Reshape)"},
        {"hostile/reshape_two_minus_one.onnx", AT_SESSION, VKML_ERROR_INVALID_MODEL,
         "node 'rs' (Reshape)"},
        {"hostile/reshape_absurd.onnx", AT_SESSION, VKML_ERROR_INVALID_MODEL,
         "node 'rs' (Reshape)"},
        /* graph structure */
        {"bad/cycle.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "cycle"},
        {"bad/unproduced_input.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "node 'lost' (Identity)"},
        {"bad/no_output_producer.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "graph output 'Z'"},
        {"bad/dup_init.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "initializer 'd' is defined twice"},
        {"bad/twice.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "'Y'"},
        {"hostile/dup_input.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "graph input 'X' is listed twice"},
        /* initializer size against its shape */
        {"bad/raw_size.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "initializer 'raw': raw_data holds 8 bytes, its shape and type need 12"},
        {"bad/typed_count.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL,
         "initializer 'short': holds 2 values in float_data, its shape needs 3"},
        /* opsets */
        {"bad/opset_high.onnx", AT_LOAD, VKML_ERROR_UNSUPPORTED, "opset 99"},
        {"bad/no_opset.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "imports no opset"},
        {"hostile/unknown_opset_domain.onnx", AT_LOAD, VKML_ERROR_UNSUPPORTED, "com.unknown.Relu"},
        {"hostile/com_microsoft_qlinear.onnx", AT_LOAD, VKML_ERROR_UNSUPPORTED,
         "com.microsoft.QLinearConv"},
        /* external data */
        {"ext/bad_parent.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "'../outside.bin'"},
        {"ext/bad_dotdot.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "inside the model's folder"},
        {"ext/bad_absolute.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "not a relative path"},
        {"ext/bad_link.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "leads outside"},
        {"ext/bad_range.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "past the end"},
        {"ext/bad_offset.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "past the end"},
        {"ext/bad_terabytes.onnx", AT_LOAD, VKML_ERROR_INVALID_MODEL, "past the end"},
        {"ext/bad_missing.onnx", AT_LOAD, VKML_ERROR_IO, "nothere.bin"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_case(&cases[i]);
}

#define CHECK_ARG(call, needle)                                                                    \
    do {                                                                                           \
        vkml_error e_ = {0};                                                                       \
        vkml_status s_ = (call);                                                                   \
        (void)e_;                                                                                  \
        printf("%s | %s | %s\n", #call, vkml_status_name(s_), e_.message);                         \
        CHECK(s_ != VKML_OK && e_.message[0] && strstr(e_.message, needle),                        \
              "%s: %s '%s' lacks '%s'", #call, vkml_status_name(s_), e_.message, needle);          \
    } while (0)

/* NULL handles and pointers: an error naming the argument, or a neutral answer. */
static void test_null_arguments(void)
{
    vkml_model *m = (vkml_model *)0x1;
    vkml_tensor t = {0};
    vkml_node_info info;
    const unsigned char byte = 0x08;
    CHECK_ARG(vkml_model_load(NULL, &m, &e_), "params is NULL");
    vkml_model_params both = {.path = "x.onnx", .bytes = &byte, .size = 1};
    CHECK_ARG(vkml_model_load(&both, &m, &e_), "not both");
    CHECK_ARG(vkml_model_load_file(NULL, &m, &e_), "no path");
    CHECK(m == NULL, "*out is NULL after a failed load");
    CHECK_ARG(vkml_model_load_file("x.onnx", NULL, &e_), "out is NULL");
    CHECK_ARG(vkml_model_load_file("", &m, &e_), "no path");
    CHECK_ARG(vkml_model_load_memory(NULL, 5, NULL, &m, &e_), "no bytes");
    CHECK_ARG(vkml_model_load_memory(NULL, 0, NULL, &m, &e_), "empty");
    CHECK_ARG(vkml_model_load_memory(&byte, 1, NULL, NULL, &e_), "out is NULL");
    CHECK_ARG(vkml_model_node(NULL, 0, &info, &e_), "no node 0");
    CHECK_ARG(vkml_tensor_read_memory(&byte, 1, NULL, NULL, &e_), "out is NULL");
    CHECK_ARG(vkml_tensor_read_memory(NULL, 0, &t, NULL, &e_), "empty");
    CHECK_ARG(vkml_tensor_read_file(NULL, &t, NULL, &e_), "must not be NULL");
    CHECK_ARG(vkml_tensor_read_file("x.pb", NULL, NULL, &e_), "must not be NULL");
    /* Failing calls with a NULL error pointer still fail. */
    CHECK(vkml_model_load_file(NULL, &m, NULL) == VKML_ERROR_INVALID_ARGUMENT, "NULL err");
    CHECK(vkml_tensor_read_memory(NULL, 0, &t, NULL, NULL) == VKML_ERROR_INVALID_MODEL, "NULL err");
    vkml_model_destroy(NULL);
    vkml_model *none = NULL;
    vkml_model_destroy(&none);
    vkml_tensor_release(NULL);
    CHECK(vkml_model_input_count(NULL) == 0 && vkml_model_output_count(NULL) == 0, "counts");
    CHECK(!vkml_model_input(NULL, 0) && !vkml_model_output(NULL, 0), "infos");
    CHECK(vkml_model_opset(NULL) == 0 && vkml_model_node_count(NULL) == 0, "opset, nodes");
    CHECK(vkml_tensor_element_count(2, NULL) == 0, "element count of NULL dims");

    /* A real model: NULL info, an index past the end. */
    char path[4096];
    snprintf(path, sizeof(path), "%s/symbolic.onnx", models_dir);
    vkml_error err = {0};
    m = NULL;
    CHECK_OK(vkml_model_load_file(path, &m, &err), &err);
    if (m) {
        CHECK_ARG(vkml_model_node(m, 0, NULL, &e_), "no node 0");
        CHECK_ARG(vkml_model_node(m, 99, &info, &e_), "no node 99");
        CHECK(!vkml_model_input(m, 99) && !vkml_model_output(m, 99), "index past the end");
    }
    vkml_model_destroy(&m);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODELS_DIR\n", argv[0]);
        return 1;
    }
    models_dir = argv[1];
    vkml_context_params cp = {.disable_vulkan = true};
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &cpu, &err), &err);
    if (cpu)
        test_matrix();
    test_null_arguments();
    vkml_context_destroy(&cpu);
    return test_finish("test_onnx_hostile");
}
