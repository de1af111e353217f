/* One conformance test: load model.onnx, create a session, and for each
 * test_data_set_N/ run input_K.pb through it and compare with output_K.pb. */
#include "conformance.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Largest integer input a test's session may fix as a constant for planning (elements):
 * shape-like inputs (axes, K, pads, shape) the node tests feed as graph inputs. */
#define CONF_MAX_SHAPE_INPUT_ELEMENTS 64

/* Most data sets and tensors per data set looked for. */
#define CONF_MAX_SETS 64
#define CONF_MAX_TENSORS 64

typedef struct conf_case {
    vkml_context *ctx;
    const cli_devices *devices;
    const conf_test *test;
    conf_result *res;
    vkml_model *model;
    vkml_session *session;
    int64_t session_sym; /* symbolic_dim_value of the session */
    bool session_fixed;  /* planned for the data set's shape-like input values */
    char note[512];      /* what a PASS reports (argmax ties under the model rule) */
} conf_case;

/* A data set's files, read. */
typedef struct conf_set {
    vkml_tensor inputs[CONF_MAX_TENSORS];
    vkml_tensor expected[CONF_MAX_TENSORS];
    vkml_tensor outputs[CONF_MAX_TENSORS];
    size_t n_inputs, n_expected, n_outputs;
} conf_set;

static void set_result(conf_result *res, conf_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_result(conf_result *res, conf_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
    va_end(ap);
    res->status = status;
    for (char *c = res->reason; *c; c++) /* one line per test */
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of consecutive files (or folders) fmt % 0, 1, ... under dir. */
static size_t count_numbered(const char *dir, const char *fmt, size_t max)
{
    size_t n = 0;
    for (; n < max; n++) {
        char name[64], path[4096];
        snprintf(name, sizeof(name), fmt, n);
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (!file_exists(path))
            break;
    }
    return n;
}

static conf_status status_of(vkml_status st)
{
    return st == VKML_ERROR_UNSUPPORTED ? CONF_UNSUPPORTED : CONF_ERROR;
}

/* Whether a session creation failed because a shape function needs the value of an input
 * the test feeds as a graph input (axes, K, shape ...; op_const_ints' message). */
static bool needs_input_values(vkml_status st, const vkml_error *err)
{
    return st == VKML_ERROR_UNSUPPORTED && strstr(err->message, "must be a constant");
}

/* The inputs a session may fix for planning: small integer tensors (shape-like data). */
static vkml_tensor *shape_like_inputs(const vkml_tensor *inputs, size_t n)
{
    vkml_tensor *values = calloc(n + 1, sizeof(*values));
    for (size_t i = 0; values && i < n; i++) {
        bool ints = inputs[i].dtype == VKML_DTYPE_INT64 || inputs[i].dtype == VKML_DTYPE_INT32;
        if (ints && vkml_tensor_element_count(inputs[i].rank, inputs[i].dims) <=
                        CONF_MAX_SHAPE_INPUT_ELEMENTS)
            values[i] = inputs[i];
    }
    return values;
}

/* Also fixes the input a "must be a constant" message names, whatever its dtype (Resize's
 * float scales and roi); false when it names none that is not fixed yet. */
static bool fix_named_input(const conf_case *c, vkml_tensor *values, const vkml_tensor *inputs,
                            size_t n, const char *message)
{
    for (size_t i = 0; i < n; i++) {
        char quoted[300];
        snprintf(quoted, sizeof(quoted), "'%s' must be a constant",
                 vkml_model_input(c->model, i)->name);
        if (!values[i].data && strstr(message, quoted)) {
            values[i] = inputs[i];
            return true;
        }
    }
    return false;
}

static bool create_session_with(conf_case *c, int64_t sym, const vkml_tensor *inputs,
                                size_t n_inputs)
{
    /* A session fixed to input values is made again for every data set. */
    if (c->session && c->session_sym == sym && !c->session_fixed)
        return true;
    vkml_session_destroy(&c->session);
    vkml_session_params params = {.symbolic_dim_value = sym};
    cli_devices_apply(c->devices, &params);
    vkml_error err = {0};
    vkml_status st = vkml_session_create(c->ctx, c->model, &params, &c->session, &err);
    c->session_fixed = false;
    if (needs_input_values(st, &err) && inputs && n_inputs == vkml_model_input_count(c->model)) {
        /* Planned for this data set's values, so for its shapes too (a symbolic dim of 0). */
        vkml_tensor_info *shapes = cli_input_shapes(c->model, inputs, n_inputs);
        vkml_tensor *values = shape_like_inputs(inputs, n_inputs);
        params.input_shapes = shapes;
        params.input_values = values;
        st = values ? vkml_session_create(c->ctx, c->model, &params, &c->session, &err) : st;
        while (values && needs_input_values(st, &err) &&
               fix_named_input(c, values, inputs, n_inputs, err.message))
            st = vkml_session_create(c->ctx, c->model, &params, &c->session, &err);
        c->session_fixed = values != NULL;
        free(values);
        free(shapes);
    }
    if (st != VKML_OK) {
        set_result(c->res, status_of(st), "session: %s", err.message);
        return false;
    }
    c->session_sym = sym;
    return true;
}

static bool create_session(conf_case *c, int64_t sym)
{
    return create_session_with(c, sym, NULL, 0);
}

/* Reads set_dir/prefix_K.pb for K < n into tensors. */
static bool read_tensors(conf_case *c, const char *set_dir, const char *prefix, size_t n,
                         vkml_tensor *tensors)
{
    for (size_t k = 0; k < n; k++) {
        char path[4096];
        vkml_error err = {0};
        snprintf(path, sizeof(path), "%s/%s_%zu.pb", set_dir, prefix, k);
        vkml_status st = vkml_tensor_read_file(path, &tensors[k], NULL, &err);
        if (st != VKML_OK) {
            /* Unsupported ops win over unreadable data (sequences, optionals). */
            if (!c->session && !create_session(c, 0))
                return false;
            const char *set = strrchr(set_dir, '/');
            set_result(c->res, CONF_ERROR, "%s/%s_%zu.pb: %s", set ? set + 1 : set_dir, prefix, k,
                       err.message);
            return false;
        }
    }
    return true;
}

static bool check_inputs(conf_case *c, conf_set *s)
{
    size_t want = vkml_session_input_count(c->session);
    if (s->n_inputs != want) {
        set_result(c->res, CONF_ERROR, "%zu input files, the session has %zu inputs", s->n_inputs,
                   want);
        return false;
    }
    for (size_t i = 0; i < want; i++) {
        char msg[512];
        if (!cli_tensor_matches_info(&s->inputs[i], vkml_session_input(c->session, i), msg,
                                     sizeof(msg))) {
            set_result(c->res, CONF_ERROR, "%s", msg);
            return false;
        }
    }
    return true;
}

static bool run_set(conf_case *c, conf_set *s)
{
    s->n_outputs = vkml_session_output_count(c->session);
    if (s->n_outputs != s->n_expected || s->n_outputs > CONF_MAX_TENSORS) {
        set_result(c->res, CONF_ERROR, "%zu output files, the session has %zu outputs",
                   s->n_expected, s->n_outputs);
        s->n_outputs = 0;
        return false;
    }
    vkml_error err = {0};
    for (size_t i = 0; i < s->n_outputs; i++) {
        vkml_status st = vkml_session_alloc_output(c->session, i, &s->outputs[i], &err);
        if (st != VKML_OK) {
            set_result(c->res, CONF_ERROR, "output %zu: %s", i, err.message);
            return false;
        }
    }
    vkml_status st =
        vkml_session_run(c->session, s->inputs, s->n_inputs, s->outputs, s->n_outputs, &err);
    if (st != VKML_OK) {
        set_result(c->res, CONF_ERROR, "run: %s", err.message);
        return false;
    }
    return true;
}

/* Appends "set: note" to the PASS note (as much as fits). */
static void add_note(conf_case *c, const char *set_name, const char *note)
{
    size_t used = strlen(c->note);
    snprintf(c->note + used, sizeof(c->note) - used, "%s%.40s: %.300s", used ? "; " : "", set_name,
             note);
}

static bool compare_set(conf_case *c, conf_set *s, const char *set_name)
{
    for (size_t i = 0; i < s->n_outputs; i++) {
        char why[900];
        const char *name = vkml_session_output(c->session, i)->name;
        int r = conf_compare_with(&c->test->tolerance, name, &s->outputs[i], &s->expected[i], why,
                                  sizeof(why));
        if (r != 0) {
            set_result(c->res, r > 0 ? CONF_FAIL : CONF_ERROR, "%s: %s", set_name, why);
            return false;
        }
        if (why[0])
            add_note(c, set_name, why);
    }
    return true;
}

static void free_set(conf_set *s)
{
    for (size_t i = 0; i < CONF_MAX_TENSORS; i++) {
        vkml_tensor_release(&s->inputs[i]);
        vkml_tensor_release(&s->expected[i]);
        vkml_tensor_release(&s->outputs[i]);
    }
}

static bool run_data_set(conf_case *c, size_t index)
{
    char set_dir[4096], set_name[48];
    snprintf(set_name, sizeof(set_name), "test_data_set_%zu", index);
    snprintf(set_dir, sizeof(set_dir), "%s/%s", c->test->dir, set_name);
    conf_set *s = calloc(1, sizeof(*s));
    if (!s) {
        set_result(c->res, CONF_ERROR, "out of memory");
        return false;
    }
    s->n_inputs = count_numbered(set_dir, "input_%zu.pb", CONF_MAX_TENSORS);
    s->n_expected = count_numbered(set_dir, "output_%zu.pb", CONF_MAX_TENSORS);
    bool ok = read_tensors(c, set_dir, "input", s->n_inputs, s->inputs) &&
              create_session_with(c, cli_symbolic_value(c->model, s->inputs, s->n_inputs),
                                  s->inputs, s->n_inputs) &&
              read_tensors(c, set_dir, "output", s->n_expected, s->expected) &&
              check_inputs(c, s) && run_set(c, s) && compare_set(c, s, set_name);
    free_set(s);
    free(s);
    return ok;
}

static void run_loaded(conf_case *c)
{
    size_t n_sets = count_numbered(c->test->dir, "test_data_set_%zu", CONF_MAX_SETS);
    if (n_sets == 0) {
        /* Still say UNSUPPORTED when the session says so. */
        if (create_session(c, 0))
            set_result(c->res, CONF_ERROR, "no test_data_set_0 folder");
        return;
    }
    for (size_t i = 0; i < n_sets; i++) {
        if (!run_data_set(c, i))
            return;
    }
    size_t on_cpu = 0;
    vkml_session_node_counts(c->session, NULL, NULL, &on_cpu);
    c->res->cpu_nodes = (int)on_cpu;
    if (on_cpu && !c->note[0])
        snprintf(c->note, sizeof(c->note), "(%zu node%s on the CPU)", on_cpu,
                 on_cpu == 1 ? "" : "s");
    set_result(c->res, CONF_PASS, "%s", c->note);
}

/* The loader's message without its "model '<path>': " lead: the test's name says which. */
static const char *without_model_path(const char *message, const char *path)
{
    char lead[4200];
    int n = snprintf(lead, sizeof(lead), "model '%s': ", path);
    if (n > 0 && (size_t)n < sizeof(lead) && strncmp(message, lead, (size_t)n) == 0)
        return message + n;
    return message;
}

void conf_run_test(vkml_context *ctx, const cli_devices *devices, const conf_test *test,
                   conf_result *res)
{
    double t0 = cli_now_ms();
    conf_case c = {.ctx = ctx, .devices = devices, .test = test, .res = res};
    res->cpu_nodes = -1;
    char path[4096];
    vkml_error err = {0};
    snprintf(path, sizeof(path), "%s/model.onnx", test->dir);
    vkml_status st = vkml_model_load_file(path, &c.model, &err);
    if (st != VKML_OK)
        set_result(res, status_of(st), "%s", without_model_path(err.message, path));
    else
        run_loaded(&c);
    vkml_session_destroy(&c.session);
    vkml_model_destroy(&c.model);
    res->ms = cli_now_ms() - t0;
}
