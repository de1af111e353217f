#pragma once
/* The conformance runner behind `vkml conformance`: test discovery (conf_discover.c),
 * one test (conf_case.c), output comparison (conf_compare.c), crash isolation in worker
 * processes (conf_isolate.c), reporting (cmd_conformance.c). */
#include "cli_util.h"

/* ONNX backend-test tolerance: |got - want| <= ATOL + RTOL * |want| (floating types). */
#define CONF_RTOL 1e-3
#define CONF_ATOL 1e-7
/* --tolerance model: the largest error allowed, as a fraction of the output's largest
 * |expected| value, for float32/float64 outputs and for float16/bfloat16 ones. */
#define CONF_MODEL_FACTOR 1e-4
#define CONF_MODEL_FACTOR_HALF 1e-2
/* Default time one test may take before its worker is killed (seconds). */
#define CONF_DEFAULT_TIMEOUT_S 120

typedef enum conf_status {
    CONF_PASS = 0,
    CONF_FAIL,
    CONF_UNSUPPORTED,
    CONF_ERROR,
    CONF_N_STATUS,
} conf_status;

/* "PASS", "FAIL", "UNSUPPORTED", "ERROR". */
const char *conf_status_name(conf_status status);

typedef struct conf_result {
    conf_status status;
    double ms;         /* wall time of the test */
    int cpu_nodes;     /* nodes on the CPU fallback of a GPU session (-1: not known) */
    char reason[1024]; /* one line; for PASS empty or a note (argmax ties) */
} conf_result;

/* How outputs are compared (--tolerance). */
typedef enum conf_rule {
    CONF_RULE_ELEMENT = 0, /* ONNX's backend-test rule, element by element (the default) */
    CONF_RULE_MODEL,       /* whole models: max error against the output's scale, argmax */
} conf_rule;

typedef struct conf_tolerance {
    conf_rule rule;
    double factor; /* CONF_RULE_MODEL: allowed error / max |expected|; 0: by dtype */
    /* The sessions compute in float16 (--precision fp16 or fp32-fast): with factor 0, every
     * floating output, float32 ones too, gets CONF_MODEL_FACTOR_HALF. */
    bool half_math;
} conf_tolerance;

typedef struct conf_test {
    char *name; /* the folder's path below the DIR given (its own name for a test DIR) */
    char *dir;  /* the folder holding model.onnx */
    conf_tolerance tolerance; /* set by the caller after conf_find_tests (zero: default) */
} conf_test;

typedef struct conf_test_list {
    conf_test *tests;
    size_t count;
    size_t capacity;
} conf_test_list;

/* Every test folder under the dirs (a dir may itself be one), whose name contains one of
 * the filters (all when n_filters is 0), sorted by name. Prints the error and returns
 * false when a dir is missing or holds no test. */
bool conf_find_tests(char *const *dirs, size_t n_dirs, char *const *filters, size_t n_filters,
                     conf_test_list *out);
void conf_free_tests(conf_test_list *list);

/* Runs one test on the device of the context (sessions are destroyed before it returns). */
void conf_run_test(vkml_context *ctx, const cli_devices *devices, const conf_test *test,
                   conf_result *res);

/* Compares an output with its expected value: 0 equal, 1 mismatch (a FAIL), -1 when the
 * type cannot be compared (an ERROR). why names the output, the first index that differs,
 * the value and the expected value. */
int conf_compare(const char *name, const vkml_tensor *got, const vkml_tensor *want, char *why,
                 size_t why_size);
/* The model rule, for whole models whose outputs gather many rounding steps: floating
 * outputs within max |got - want| <= factor * max |want| (at least CONF_ATOL; factor 0
 * picks CONF_MODEL_FACTOR or, for float16/bfloat16, CONF_MODEL_FACTOR_HALF), NaN and
 * infinities where the expected value has them; for rank >= 2 and a last dimension > 1,
 * the same argmax per row (over the last axis) unless the expected values at both argmax
 * positions are within the allowed error of each other (a tie: counted in a note);
 * other types exactly. Returns as conf_compare; on 0, why holds the note or "". */
int conf_compare_model(const char *name, const vkml_tensor *got, const vkml_tensor *want,
                       double factor, char *why, size_t why_size);
/* By the test's rule: conf_compare or conf_compare_model (why "" when equal). */
int conf_compare_with(const conf_tolerance *tol, const char *name, const vkml_tensor *got,
                      const vkml_tensor *want, char *why, size_t why_size);

/* Called once per finished test, in list order. */
typedef void (*conf_report_fn)(size_t index, const conf_result *res, void *user);

typedef struct conf_run_params {
    const char *device;    /* --device text */
    const char *budget;    /* --budget text */
    const char *precision; /* --precision text (NULL: fp32) */
    const conf_test *tests;
    size_t count;
    bool isolate;     /* each test in a worker process (crash and hang safe) */
    double timeout_s; /* per test, with isolate */
    conf_report_fn report;
    void *user;
    /* Filled: the devices' label ("cpu", "0", "0,1") and the first one's name. */
    char device_label[64];
    char device_name[256];
} conf_run_params;

/* Runs every test and reports each. false (with the error printed) when the context or
 * the device could not be opened. */
bool conf_run_all(conf_run_params *p);
/* Opens the context and resolves the device; fills the labels in p. */
vkml_context *conf_open_device(conf_run_params *p, cli_devices *devices, char *msg,
                               size_t msg_size);
