/* `vkml conformance DIR...`: runs ONNX backend tests and reports per test and in total. */
#include "conformance.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static int conformance_main(int argc, char **argv);

const cli_command cli_cmd_conformance = {
    .name = "conformance",
    .summary = "run ONNX backend test folders and report PASS/FAIL/UNSUPPORTED/ERROR",
    .usage = "usage: vkml conformance [--device D] [--budget SIZE] [--json FILE] [--filter S]...\n"
             "                        [--isolate | --no-isolate] [--timeout S]\n"
             "                        [--tolerance default|model|F] [--precision P] [--no-fuse]\n"
             "                        DIR...\n"
             "Runs every test folder (model.onnx + test_data_set_N/) in or below each DIR\n"
             "(a DIR may be one test folder), sorted by name, and prints one line per test,\n"
             "`PASS|FAIL|UNSUPPORTED|ERROR <test> [reason]`, then the totals line.\n"
             "  --device D      cpu, default, all, a GPU index or a list (0,1,cpu): the\n"
             "                  devices each test is planned over (default: default)\n"
             "  --budget SIZE   bytes each test may place on each GPU (512M, 64K): small\n"
             "                  budgets split the tests' models over the devices\n"
             "  --precision P   fp32 (default), fp32-fast or fp16 (fp16-always: every fp16\n"
             "                  session runs its float16 plan): the sessions' precision\n"
             "                  (compare fp16 with --tolerance model: fp16 and fp32-fast\n"
             "                  sessions get float16's bound, 1e-2 of scale, on every output)\n"
             "  --json FILE     also write the results as JSON\n"
             "  --filter S      only tests whose name contains S (repeatable: any of them)\n"
             "  --isolate       run the tests in worker processes: a crash or a hang becomes\n"
             "                  ERROR (the default when there is more than one test)\n"
             "  --no-isolate    run every test in this process\n"
             "  --timeout S     seconds one test may take with --isolate (default 120)\n"
             "  --tolerance R   how outputs are compared: default (ONNX's rule, element by\n"
             "                  element: |got-want| <= 1e-7 + 1e-3|want|), model (whole\n"
             "                  models: max |got-want| <= 1e-4 x max |want|, 1e-2 for\n"
             "                  float16, and the same argmax per row), or a number F: the\n"
             "                  model rule with F in place of 1e-4 and 1e-2\n"
             "  --no-fuse       run elementwise chains node by node (VKML_NO_FUSE=1)\n"
             "Exit status: 0 when no test FAILed or ERRORed, 1 otherwise, 2 bad arguments.\n",
    .main = conformance_main,
};

#define CONF_MAX_FILTERS 64

typedef struct conf_options {
    const char *device;
    const char *budget;
    const char *precision;
    const char *json;
    char *filters[CONF_MAX_FILTERS];
    size_t n_filters;
    int isolate; /* -1: by test count */
    long timeout_s;
    conf_tolerance tolerance;
    char **dirs;
    size_t n_dirs;
} conf_options;

typedef struct conf_report {
    const conf_test *tests;
    conf_result *results;
    size_t totals[CONF_N_STATUS];
} conf_report;

const char *conf_status_name(conf_status status)
{
    static const char *const names[CONF_N_STATUS] = {"PASS", "FAIL", "UNSUPPORTED", "ERROR"};
    return status < CONF_N_STATUS ? names[status] : "ERROR";
}

/* "default", "model", or a positive number (the model rule with that factor). */
static bool parse_tolerance(const char *text, conf_tolerance *out)
{
    if (strcmp(text, "default") == 0) {
        *out = (conf_tolerance){.rule = CONF_RULE_ELEMENT};
        return true;
    }
    if (strcmp(text, "model") == 0) {
        *out = (conf_tolerance){.rule = CONF_RULE_MODEL};
        return true;
    }
    char *end;
    double f = strtod(text, &end);
    if (end == text || *end || !(f > 0 && f < 1))
        return false;
    *out = (conf_tolerance){.rule = CONF_RULE_MODEL, .factor = f};
    return true;
}

static int parse_options(int argc, char **argv, conf_options *o)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"device", required_argument, NULL, 'd'},
                                         {"budget", required_argument, NULL, 'b'},
                                         {"json", required_argument, NULL, 'j'},
                                         {"filter", required_argument, NULL, 'f'},
                                         {"isolate", no_argument, NULL, 'i'},
                                         {"no-isolate", no_argument, NULL, 'n'},
                                         {"timeout", required_argument, NULL, 't'},
                                         {"tolerance", required_argument, NULL, 'T'},
                                         {"precision", required_argument, NULL, 'P'},
                                         {"no-fuse", no_argument, NULL, 'F'},
                                         {0}};
    *o = (conf_options){.isolate = -1, .timeout_s = CONF_DEFAULT_TIMEOUT_S};
    int c;
    while ((c = getopt_long(argc, argv, ":hd:b:j:f:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_usage(&cli_cmd_conformance); return -1;
        case 'd': o->device = optarg; break;
        case 'b': o->budget = optarg; break;
        case 'P': o->precision = optarg; break;
        case 'F': cli_set_no_fuse(); break;
        case 'j': o->json = optarg; break;
        case 'f':
            if (o->n_filters == CONF_MAX_FILTERS)
                return cli_usage_error(&cli_cmd_conformance, "too many --filter options");
            o->filters[o->n_filters++] = optarg;
            break;
        case 'i': o->isolate = 1; break;
        case 'n': o->isolate = 0; break;
        case 't':
            if (!cli_parse_count(optarg, &o->timeout_s))
                return cli_usage_error(&cli_cmd_conformance, "--timeout needs seconds >= 1");
            break;
        case 'T':
            if (!parse_tolerance(optarg, &o->tolerance))
                return cli_usage_error(&cli_cmd_conformance,
                                       "--tolerance needs default, model or a number in (0, 1), "
                                       "not '%s'",
                                       optarg);
            break;
        default: return cli_option_error(&cli_cmd_conformance, c, argv);
        }
    }
    if (optind == argc)
        return cli_usage_error(&cli_cmd_conformance, "expected at least one DIR");
    o->dirs = argv + optind;
    o->n_dirs = (size_t)(argc - optind);
    return CLI_EXIT_OK;
}

static void report_one(size_t index, const conf_result *res, void *user)
{
    conf_report *r = user;
    r->results[index] = *res;
    r->totals[res->status < CONF_N_STATUS ? res->status : CONF_ERROR]++;
    printf("%s %s%s%s\n", conf_status_name(res->status), r->tests[index].name,
           res->reason[0] ? " " : "", res->reason);
    fflush(stdout);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static bool write_json(const char *path, const conf_run_params *p, const conf_report *r,
                       double seconds)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("--json %s: cannot open for writing", path);
        return false;
    }
    fprintf(f, "{\n  \"device\": ");
    json_string(f, p->device_label);
    fprintf(f, ",\n  \"device_name\": ");
    json_string(f, p->device_name);
    fprintf(f, ",\n  \"seconds\": %.3f,\n  \"tests\": [", seconds);
    for (size_t i = 0; i < p->count; i++) {
        fprintf(f, "%s\n    {\"test\": ", i ? "," : "");
        json_string(f, p->tests[i].name);
        fprintf(f, ", \"status\": \"%s\", \"reason\": ", conf_status_name(r->results[i].status));
        json_string(f, r->results[i].reason);
        fprintf(f, ", \"device\": ");
        json_string(f, p->device_label);
        fprintf(f, ", \"cpu_nodes\": %d, \"ms\": %.3f}", r->results[i].cpu_nodes, r->results[i].ms);
    }
    fprintf(f,
            "\n  ],\n  \"totals\": {\"pass\": %zu, \"fail\": %zu, \"unsupported\": %zu, "
            "\"error\": %zu, \"total\": %zu}\n}\n",
            r->totals[CONF_PASS], r->totals[CONF_FAIL], r->totals[CONF_UNSUPPORTED],
            r->totals[CONF_ERROR], p->count);
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok)
        cli_error("--json %s: write failed", path);
    return ok;
}

static int run_tests(const conf_options *o, const conf_test_list *list)
{
    conf_report r = {.tests = list->tests, .results = calloc(list->count, sizeof(conf_result))};
    if (!r.results)
        return cli_error("out of memory");
    conf_run_params p = {
        .device = o->device,
        .budget = o->budget,
        .precision = o->precision,
        .tests = list->tests,
        .count = list->count,
        .isolate = o->isolate < 0 ? list->count > 1 : o->isolate,
        .timeout_s = (double)o->timeout_s,
        .report = report_one,
        .user = &r,
    };
    double t0 = cli_now_ms();
    bool ran = conf_run_all(&p);
    double seconds = (cli_now_ms() - t0) / 1e3;
    int rc = CLI_EXIT_FAILURE;
    if (ran) {
        fprintf(stderr, "conformance: device %s (%s), %.1f s\n", p.device_label, p.device_name,
                seconds);
        printf("conformance: %zu pass, %zu fail, %zu unsupported, %zu error, %zu total\n",
               r.totals[CONF_PASS], r.totals[CONF_FAIL], r.totals[CONF_UNSUPPORTED],
               r.totals[CONF_ERROR], list->count);
        bool clean = r.totals[CONF_FAIL] == 0 && r.totals[CONF_ERROR] == 0;
        bool json_ok = !o->json || write_json(o->json, &p, &r, seconds);
        rc = clean && json_ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
    }
    free(r.results);
    return rc;
}

static int conformance_main(int argc, char **argv)
{
    conf_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != CLI_EXIT_OK)
        return rc < 0 ? CLI_EXIT_OK : rc;
    conf_test_list list;
    if (!conf_find_tests(o.dirs, o.n_dirs, o.filters, o.n_filters, &list))
        return CLI_EXIT_FAILURE;
    if (list.count == 0) {
        conf_free_tests(&list);
        return cli_error("no test matches the --filter given");
    }
    /* an fp16 or fp32-fast session rounds to float16 inside, whatever its outputs' type */
    o.tolerance.half_math = o.precision && (strncmp(o.precision, "fp16", 4) == 0 ||
                                            strcmp(o.precision, "fp32-fast") == 0);
    for (size_t i = 0; i < list.count; i++)
        list.tests[i].tolerance = o.tolerance;
    rc = run_tests(&o, &list);
    conf_free_tests(&list);
    return rc;
}
