/* `vkml run MODEL`: runs a model once (or N times, timed) and prints its outputs. */
#include "cli_profile.h"
#include "cli_util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_main(int argc, char **argv);

const cli_command cli_cmd_run = {
    .name = "run",
    .summary = "run a model on a device and print its outputs (and latency)",
    .usage = "usage: vkml run MODEL [--device D] [--budget SIZE] [--input [NAME=]FILE.pb ...]\n"
             "                      [--repeat N] [--warmup-ms MS] [--values N] [--precision P]\n"
             "                      [--save DIR]\n"
             "                      [--no-fuse] [--data-parallel]\n"
             "  --device D       cpu, default, all, a GPU index (0, 1, ...) or a list\n"
             "                   (0,1,cpu): the devices the model is planned over, in order\n"
             "                   of preference; default: every GPU, the default one first\n"
             "  --budget SIZE    bytes the session may place on each GPU (512M, 2G); more\n"
             "                   than fits one GPU splits the model over the next ones\n"
             "  --input NAME=F   input NAME from the TensorProto file F; without NAME= the\n"
             "                   files fill the model's inputs in order. Inputs not given\n"
             "                   are zeros (a note on stderr says which).\n"
             "  --repeat N       after one warm-up run, run N times and print the median\n"
             "                   and p99 latency in ms\n"
             "  --warmup-ms MS   with --repeat: warm-up runs for MS milliseconds first (at\n"
             "                   least one), so that an idle GPU's clocks are up (an H200\n"
             "                   idles at a sixth of its clock and takes a few runs to rise)\n"
             "  --values N       print the first N values of each output (default 10)\n"
             "  --in-flight K    runs in flight (1 to 16, default 1): with --repeat, also\n"
             "                   submit N runs keeping K in flight and print runs/s\n"
             "  --precision P    fp32 (default), fp32-fast, fp16 or fp16-always (float16\n"
             "                   tensors and weights, float32 accumulation; inputs/outputs\n"
             "                   stay float32); fp16 keeps float16 only where it ran no\n"
             "                   slower than float32 when the session was made\n"
             "  --save DIR       also write each output's bytes (dense, row-major) to\n"
             "                   DIR/output_K.bin (K from 0), for comparison by scripts\n"
             "  --no-fuse        run elementwise chains node by node (no fused groups;\n"
             "                   the same as VKML_NO_FUSE=1)\n"
             "  --data-parallel  with several GPUs in --device: a copy of the model on\n"
             "                   each, runs going to them in turn (--in-flight rounded up\n"
             "                   to a multiple of the GPU count) instead of one plan over\n"
             "                   them\n"
             "  --wait-spin US   microseconds a host wait for a GPU polls before it sleeps\n"
             "                   (0 to 1000000; 0: no polling; default 20 on a GPU, none on\n"
             "                   lavapipe)\n"
             "  --profile        time every node on its device (GPU timestamps) and print\n"
             "                   the time per op and the slowest nodes, the mean of the\n"
             "                   --repeat runs (at most 100; one without --repeat); the\n"
             "                   timestamps add a little to the latencies printed\n"
             "  --profile-nodes N with --profile (implied): list the N slowest nodes\n"
             "                   (default 15; 0: every node)\n",
    .main = run_main,
};

#define RUN_MAX_INPUT_ARGS 64

typedef struct run_options {
    const char *model_path;
    const char *device;
    const char *budget;
    const char *precision;
    const char *save_dir;
    const char *input_args[RUN_MAX_INPUT_ARGS];
    int n_input_args;
    long repeat;
    long warmup_ms; /* --warmup-ms: 0, one warm-up run */
    long values;
    long in_flight;
    int wait_spin_us; /* vkml_session_params.wait_spin_us: 0 default, -1 no polling */
    bool profile;
    bool data_parallel;
    long profile_nodes; /* slowest nodes --profile lists; 0: all */
} run_options;

/* The model's input tensors: given ones read from files, the others zeros. */
typedef struct run_inputs {
    vkml_tensor *tensors;
    bool *from_file; /* data from vkml_tensor_read_file (else malloc'ed here) */
    size_t count;
} run_inputs;

static int parse_options(int argc, char **argv, run_options *o)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"device", required_argument, NULL, 'd'},
                                         {"input", required_argument, NULL, 'i'},
                                         {"repeat", required_argument, NULL, 'r'},
                                         {"warmup-ms", required_argument, NULL, 'W'},
                                         {"values", required_argument, NULL, 'v'},
                                         {"budget", required_argument, NULL, 'b'},
                                         {"in-flight", required_argument, NULL, 'k'},
                                         {"precision", required_argument, NULL, 'p'},
                                         {"save", required_argument, NULL, 's'},
                                         {"no-fuse", no_argument, NULL, 'F'},
                                         {"wait-spin", required_argument, NULL, 'w'},
                                         {"profile", no_argument, NULL, 'P'},
                                         {"profile-nodes", required_argument, NULL, 'N'},
                                         {"data-parallel", no_argument, NULL, 'D'},
                                         {0}};
    *o = (run_options){.values = 10, .in_flight = 1, .profile_nodes = CLI_PROFILE_NODES};
    int c;
    while ((c = getopt_long(argc, argv, ":hd:b:i:r:v:k:p:s:w:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_usage(&cli_cmd_run); return -1;
        case 'd': o->device = optarg; break;
        case 'b': o->budget = optarg; break;
        case 'p': o->precision = optarg; break;
        case 's': o->save_dir = optarg; break;
        case 'F': cli_set_no_fuse(); break;
        case 'P': o->profile = true; break;
        case 'D': o->data_parallel = true; break;
        case 'N':
            if (strcmp(optarg, "0") != 0 && !cli_parse_count(optarg, &o->profile_nodes))
                return cli_usage_error(&cli_cmd_run, "--profile-nodes needs a count >= 0");
            o->profile_nodes = strcmp(optarg, "0") == 0 ? 0 : o->profile_nodes;
            o->profile = true;
            break;
        case 'i':
            if (o->n_input_args == RUN_MAX_INPUT_ARGS)
                return cli_usage_error(&cli_cmd_run, "too many --input options");
            o->input_args[o->n_input_args++] = optarg;
            break;
        case 'r':
            if (!cli_parse_count(optarg, &o->repeat))
                return cli_usage_error(&cli_cmd_run, "--repeat needs a count >= 1");
            break;
        case 'W':
            if (!cli_parse_count(optarg, &o->warmup_ms) || o->warmup_ms > 60000)
                return cli_usage_error(&cli_cmd_run, "--warmup-ms needs 1 to 60000");
            break;
        case 'k':
            if (!cli_parse_count(optarg, &o->in_flight) || o->in_flight > VKML_MAX_RUNS_IN_FLIGHT)
                return cli_usage_error(&cli_cmd_run, "--in-flight needs a count from 1 to %d",
                                       VKML_MAX_RUNS_IN_FLIGHT);
            break;
        case 'w': {
            char *end;
            long us = strtol(optarg, &end, 10);
            if (end == optarg || *end || us < 0 || us > VKML_MAX_WAIT_SPIN_US)
                return cli_usage_error(&cli_cmd_run, "--wait-spin needs microseconds from 0 to %d",
                                       VKML_MAX_WAIT_SPIN_US);
            o->wait_spin_us = us ? (int)us : -1;
            break;
        }
        case 'v':
            if (!cli_parse_count(optarg, &o->values))
                return cli_usage_error(&cli_cmd_run, "--values needs a count >= 1");
            break;
        default: return cli_option_error(&cli_cmd_run, c, argv);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(&cli_cmd_run, "expected one MODEL argument");
    o->model_path = argv[optind];
    return CLI_EXIT_OK;
}

static long find_input(const vkml_model *model, const char *name, size_t len)
{
    for (size_t i = 0; i < vkml_model_input_count(model); i++) {
        const char *n = vkml_model_input(model, i)->name;
        if (strlen(n) == len && strncmp(n, name, len) == 0)
            return (long)i;
    }
    return -1;
}

/* "NAME=FILE" when NAME is an input of the model, else FILE for the next free input. */
static int place_input_arg(const vkml_model *model, run_inputs *in, const char *arg,
                           size_t *next_positional)
{
    const char *eq = strchr(arg, '=');
    long index = eq ? find_input(model, arg, (size_t)(eq - arg)) : -1;
    const char *path = index >= 0 ? eq + 1 : arg;
    if (index < 0 && eq && access(arg, F_OK) != 0)
        return cli_error("--input %s: the model has no input named '%.*s'", arg, (int)(eq - arg),
                         arg);
    if (index < 0) {
        while (*next_positional < in->count && in->from_file[*next_positional])
            (*next_positional)++;
        if (*next_positional == in->count)
            return cli_error("--input %s: the model has only %zu input(s)", arg, in->count);
        index = (long)*next_positional;
    }
    if (in->from_file[index])
        return cli_error("--input %s: input '%s' given twice", arg,
                         vkml_model_input(model, (size_t)index)->name);
    vkml_error err = {0};
    vkml_status st = vkml_tensor_read_file(path, &in->tensors[index], NULL, &err);
    if (st != VKML_OK)
        return cli_error_vkml(path, st, &err);
    in->from_file[index] = true;
    return CLI_EXIT_OK;
}

static int read_inputs(const vkml_model *model, const run_options *o, run_inputs *in)
{
    in->count = vkml_model_input_count(model);
    in->tensors = calloc(in->count + 1, sizeof(*in->tensors));
    in->from_file = calloc(in->count + 1, sizeof(*in->from_file));
    if (!in->tensors || !in->from_file)
        return cli_error("out of memory");
    size_t next = 0;
    for (int i = 0; i < o->n_input_args; i++) {
        int rc = place_input_arg(model, in, o->input_args[i], &next);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}

/* Zeros for each input not given; checks the given ones against the session. */
static int complete_inputs(const vkml_session *session, run_inputs *in)
{
    if (vkml_session_input_count(session) != in->count)
        return cli_error("the session has %zu inputs, the model %zu",
                         vkml_session_input_count(session), in->count);
    for (size_t i = 0; i < in->count; i++) {
        const vkml_tensor_info *info = vkml_session_input(session, i);
        char msg[512], shape[160];
        if (in->from_file[i]) {
            if (!cli_tensor_matches_info(&in->tensors[i], info, msg, sizeof(msg)))
                return cli_error("%s", msg);
            continue;
        }
        vkml_tensor *t = &in->tensors[i];
        *t = (vkml_tensor){.dtype = info->dtype, .rank = info->rank};
        memcpy(t->dims, info->dims, sizeof(t->dims));
        size_t n = vkml_tensor_element_count(t->rank, t->dims);
        bool strings = t->dtype == VKML_DTYPE_STRING; /* empty strings */
        t->size = strings ? n * sizeof(char *) : (n * vkml_dtype_bits(t->dtype) + 7) / 8;
        t->data = calloc(1, t->size ? t->size : 1);
        if (!t->data)
            return cli_error("out of memory for input '%s'", info->name);
        for (size_t k = 0; strings && k < n; k++)
            ((const char **)t->data)[k] = "";
        cli_note("input '%s' not given: filled with %s, %s %s", info->name,
                 strings ? "empty strings" : "zeros", vkml_dtype_name(info->dtype),
                 cli_format_info_shape(info, shape, sizeof(shape)));
    }
    return CLI_EXIT_OK;
}

static void free_inputs(run_inputs *in)
{
    for (size_t i = 0; in->tensors && i < in->count; i++) {
        if (in->from_file[i])
            vkml_tensor_release(&in->tensors[i]);
        else
            free(in->tensors[i].data);
    }
    free(in->tensors);
    free(in->from_file);
}

typedef struct run_state {
    vkml_session *session;
    run_inputs in;
    vkml_tensor *outputs;
    size_t n_outputs;
} run_state;

static int run_once(run_state *s)
{
    vkml_error err = {0};
    vkml_status st =
        vkml_session_run(s->session, s->in.tensors, s->in.count, s->outputs, s->n_outputs, &err);
    return st == VKML_OK ? CLI_EXIT_OK : cli_error_vkml("run", st, &err);
}

static int run_timed(run_state *s, long repeat, long warmup_ms)
{
    double *ms = calloc((size_t)repeat, sizeof(*ms));
    if (!ms)
        return cli_error("out of memory");
    double w0 = cli_now_ms();
    int rc;
    do /* warm-up: one run, or warmup_ms of runs */
        rc = run_once(s);
    while (rc == CLI_EXIT_OK && cli_now_ms() - w0 < (double)warmup_ms);
    for (long i = 0; rc == CLI_EXIT_OK && i < repeat; i++) {
        double t0 = cli_now_ms();
        rc = run_once(s);
        ms[i] = cli_now_ms() - t0;
    }
    if (rc == CLI_EXIT_OK) {
        double median = cli_quantile(ms, (size_t)repeat, 0.5);
        double p99 = cli_quantile(ms, (size_t)repeat, 0.99);
        printf("latency: median %.4f ms, p99 %.4f ms over %ld runs\n", median, p99, repeat);
    }
    free(ms);
    return rc;
}

/* Throughput: `repeat` runs submitted with `k` in flight, each lane writing its own set
 * of outputs (run i uses lane i % k, and a lane's runs never overlap). */
static int run_streamed(run_state *s, long repeat, long k)
{
    vkml_tensor *sets = calloc((size_t)k * (s->n_outputs + 1), sizeof(vkml_tensor));
    vkml_run **runs = calloc((size_t)k, sizeof(vkml_run *));
    int rc = sets && runs ? CLI_EXIT_OK : cli_error("out of memory");
    vkml_error err = {0};
    for (long j = 0; rc == CLI_EXIT_OK && j < k; j++)
        for (size_t o = 0; o < s->n_outputs; o++) {
            vkml_status st = vkml_session_alloc_output(
                s->session, o, &sets[j * (long)s->n_outputs + (long)o], &err);
            if (st != VKML_OK)
                rc = cli_error_vkml("allocating outputs", st, &err);
        }
    double t0 = cli_now_ms();
    for (long i = 0; rc == CLI_EXIT_OK && i < repeat; i++) {
        vkml_run **slot = &runs[i % k];
        vkml_status st = *slot ? vkml_run_wait(slot, &err) : VKML_OK;
        if (st == VKML_OK)
            st = vkml_session_submit(s->session, s->in.tensors, s->in.count,
                                     &sets[(i % k) * (long)s->n_outputs], s->n_outputs, NULL, NULL,
                                     slot, &err);
        if (st != VKML_OK)
            rc = cli_error_vkml("submitted run", st, &err);
    }
    for (long j = 0; runs && j < k; j++) {
        vkml_status st = runs[j] ? vkml_run_wait(&runs[j], &err) : VKML_OK;
        if (st != VKML_OK && rc == CLI_EXIT_OK)
            rc = cli_error_vkml("submitted run", st, &err);
    }
    double ms = cli_now_ms() - t0;
    if (rc == CLI_EXIT_OK)
        printf("throughput: %.1f runs/s with %ld in flight (%ld runs, %.3f ms each)\n",
               (double)repeat * 1000.0 / ms, k, repeat, ms / (double)repeat);
    for (long j = 0; sets && j < k * (long)s->n_outputs; j++)
        vkml_tensor_release(&sets[j]);
    free(sets);
    free(runs);
    return rc;
}

static int alloc_outputs(run_state *s)
{
    s->n_outputs = vkml_session_output_count(s->session);
    s->outputs = calloc(s->n_outputs + 1, sizeof(*s->outputs));
    if (!s->outputs)
        return cli_error("out of memory");
    for (size_t i = 0; i < s->n_outputs; i++) {
        vkml_error err = {0};
        vkml_status st = vkml_session_alloc_output(s->session, i, &s->outputs[i], &err);
        if (st != VKML_OK)
            return cli_error_vkml("allocating outputs", st, &err);
    }
    return CLI_EXIT_OK;
}

static void print_device(vkml_context *ctx, int device)
{
    vkml_device_info info;
    vkml_error err = {0};
    char label[16];
    if (vkml_context_device_info(ctx, device, &info, &err) == VKML_OK)
        printf("device: %s (%s)\n", cli_device_label(device, label, sizeof(label)), info.name);
}

/* A data-parallel session's GPUs. */
static void print_replicas(const vkml_session *session)
{
    int dev[VKML_MAX_SESSION_DEVICES];
    int n = vkml_session_replica_count(session, dev, VKML_MAX_SESSION_DEVICES);
    if (n < 2)
        return;
    printf("data parallel: a copy of the model on each of devices");
    for (int k = 0; k < n && k < VKML_MAX_SESSION_DEVICES; k++)
        printf("%s %d", k ? "," : "", dev[k]);
    printf(" (runs go to them in turn)\n");
}

/* The plan's parts when the model is split over several devices. */
static void print_plan(vkml_context *ctx, const vkml_session *session)
{
    size_t parts = vkml_session_plan_part_count(session);
    for (size_t i = 0; parts > 1 && i < parts; i++) {
        vkml_plan_part part;
        vkml_device_info info;
        vkml_error err = {0};
        char label[16], w[32], peak[32];
        if (!vkml_session_plan_part(session, i, &part) ||
            vkml_context_device_info(ctx, part.device, &info, &err) != VKML_OK)
            continue;
        printf("plan: %s (%s): %zu nodes, weights %s, peak tensors %s\n",
               cli_device_label(part.device, label, sizeof(label)), info.name, part.n_nodes,
               cli_format_bytes(part.weight_bytes, w, sizeof(w)),
               cli_format_bytes(part.peak_bytes, peak, sizeof(peak)));
    }
}

/* --save: each output's bytes to DIR/output_K.bin. */
static int save_outputs(const run_state *s, const char *dir)
{
    for (size_t i = 0; i < s->n_outputs; i++) {
        const vkml_tensor *t = &s->outputs[i];
        size_t bytes = vkml_tensor_element_count(t->rank, t->dims) * vkml_dtype_size(t->dtype);
        char path[4096];
        snprintf(path, sizeof(path), "%s/output_%zu.bin", dir, i);
        FILE *f = fopen(path, "wb");
        bool ok = f && fwrite(t->data, 1, bytes, f) == bytes;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok)
            return cli_error("--save: could not write %s", path);
    }
    return CLI_EXIT_OK;
}

static int run_session(vkml_context *ctx, vkml_model *model, const cli_devices *devices,
                       const run_options *o, run_state *s)
{
    int rc = read_inputs(model, o, &s->in);
    if (rc != CLI_EXIT_OK)
        return rc;
    vkml_tensor_info *shapes = cli_input_shapes(model, s->in.tensors, s->in.count);
    vkml_session_params params = {
        .symbolic_dim_value = cli_symbolic_value(model, s->in.tensors, s->in.count),
        .input_shapes = shapes,
        .runs_in_flight = (int)o->in_flight,
        .wait_spin_us = o->wait_spin_us,
        .profile = o->profile,
        .data_parallel = o->data_parallel,
    };
    cli_devices_apply(devices, &params);
    vkml_error err = {0};
    vkml_status st = vkml_session_create(ctx, model, &params, &s->session, &err);
    free(shapes);
    if (st != VKML_OK)
        return cli_error_vkml("creating the session", st, &err);
    print_device(ctx, vkml_session_device(s->session));
    if (params.precision != VKML_PRECISION_FP32)
        printf("precision: %s\n", vkml_precision_name(vkml_session_precision(s->session)));
    print_replicas(s->session);
    print_plan(ctx, s->session);
    if ((rc = complete_inputs(s->session, &s->in)) != CLI_EXIT_OK ||
        (rc = alloc_outputs(s)) != CLI_EXIT_OK)
        return rc;
    rc = o->repeat ? run_timed(s, o->repeat, o->warmup_ms) : run_once(s);
    if (rc == CLI_EXIT_OK && o->save_dir)
        rc = save_outputs(s, o->save_dir);
    if (rc == CLI_EXIT_OK && o->repeat)
        rc = run_streamed(s, o->repeat, vkml_session_runs_in_flight(s->session));
    if (rc == CLI_EXIT_OK && o->profile)
        rc = cli_profile_runs(s->session, s->in.tensors, s->in.count, s->outputs, s->n_outputs,
                              o->repeat ? (o->repeat < 100 ? o->repeat : 100) : 1,
                              (size_t)o->profile_nodes);
    for (size_t i = 0; rc == CLI_EXIT_OK && i < s->n_outputs; i++)
        cli_print_tensor(vkml_session_output(s->session, i)->name, &s->outputs[i],
                         (size_t)o->values);
    return rc;
}

static int run_model(vkml_context *ctx, const run_options *o)
{
    cli_devices devices;
    if (!cli_devices_parse(ctx, o->device, o->budget, &devices) ||
        !cli_precision_parse(o->precision, &devices))
        return CLI_EXIT_FAILURE;
    vkml_model *model = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_model_load_file(o->model_path, &model, &err);
    if (st != VKML_OK)
        return cli_error_vkml(o->model_path, st, &err);
    run_state s = {0};
    int rc = run_session(ctx, model, &devices, o, &s);
    for (size_t i = 0; s.outputs && i < s.n_outputs; i++)
        vkml_tensor_release(&s.outputs[i]);
    free(s.outputs);
    free_inputs(&s.in);
    vkml_session_destroy(&s.session);
    vkml_model_destroy(&model);
    return rc;
}

static int run_main(int argc, char **argv)
{
    run_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != CLI_EXIT_OK)
        return rc < 0 ? CLI_EXIT_OK : rc;
    vkml_context *ctx = cli_context_create(o.device && strcmp(o.device, "cpu") == 0);
    if (!ctx)
        return CLI_EXIT_FAILURE;
    rc = run_model(ctx, &o);
    vkml_context_destroy(&ctx);
    return rc;
}
