/* `vkml inspect MODEL`: opset, inputs, outputs, the ops used and which device runs them. */
#include "cli_util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static int inspect_main(int argc, char **argv);

const cli_command cli_cmd_inspect = {
    .name = "inspect",
    .summary = "show a model's inputs, outputs, ops and which devices run them",
    .usage = "usage: vkml inspect MODEL [--plan [--device D] [--budget SIZE] [--precision P]\n"
             "                             [--no-fuse] [--data-parallel]]\n"
             "       vkml inspect --ops        (same as `vkml ops`)\n"
             "Prints the opset, the inputs and outputs (name, dtype, shape; symbolic\n"
             "dimensions by name), each op type with its node count and, per device,\n"
             "whether it runs there (yes, no, or k/n nodes; 'value' for Constant\n"
             "nodes, which are folded into values before placement), then why for\n"
             "each 'no'.\n"
             "  --plan         also plan a session (symbolic dims 1) and print its\n"
             "                partition: per device its nodes (count, first .. last),\n"
             "                weights and peak tensor bytes; every cross-device copy\n"
             "  --device D     the plan's devices: default, all, cpu, 1, 0,1,cpu (as run)\n"
             "  --budget SIZE  the plan's bytes per GPU (512M, 2G)\n"
             "  --precision P  the plan's precision: fp32 (default), fp32-fast, fp16,\n"
             "                 fp16-always\n"
             "  --no-fuse      plan without fusing elementwise chains (VKML_NO_FUSE=1)\n"
             "  --data-parallel a copy of the plan on each GPU of --device (the parts\n"
             "                printed are the first copy's)\n",
    .main = inspect_main,
};

/* Devices shown as columns: the CPU and the first GPUs. */
#define INSPECT_MAX_DEVICES 9

typedef struct op_usage {
    const char *domain;
    const char *op_type;
    bool value; /* Constant: a value, not placed on a device */
    size_t count;
    size_t supported[INSPECT_MAX_DEVICES];
} op_usage;

typedef struct inspect_state {
    vkml_context *ctx;
    const vkml_model *model;
    int devices[INSPECT_MAX_DEVICES];
    int n_devices;
    op_usage *ops;
    size_t n_ops;
} inspect_state;

static void print_values_list(const char *title, const vkml_model *model, bool inputs)
{
    size_t n = inputs ? vkml_model_input_count(model) : vkml_model_output_count(model);
    printf("%s (%zu):\n", title, n);
    for (size_t i = 0; i < n; i++) {
        const vkml_tensor_info *info =
            inputs ? vkml_model_input(model, i) : vkml_model_output(model, i);
        char shape[256];
        printf("  %-24s %-8s %s\n", info->name, vkml_dtype_name(info->dtype),
               cli_format_info_shape(info, shape, sizeof(shape)));
    }
}

static op_usage *find_or_add_op(inspect_state *s, const vkml_node_info *node)
{
    for (size_t i = 0; i < s->n_ops; i++) {
        if (strcmp(s->ops[i].op_type, node->op_type) == 0 &&
            strcmp(s->ops[i].domain, node->domain) == 0)
            return &s->ops[i];
    }
    op_usage *grown = realloc(s->ops, (s->n_ops + 1) * sizeof(*grown));
    if (!grown)
        return NULL;
    s->ops = grown;
    op_usage *u = &s->ops[s->n_ops++];
    memset(u, 0, sizeof(*u));
    u->domain = node->domain;
    u->op_type = node->op_type;
    return u;
}

/* A Constant node is a value: constant folding turns it into an initializer before
 * placement, so no device runs it, whatever kernels the devices have. */
static bool is_value_node(const vkml_node_info *node)
{
    return strcmp(node->op_type, "Constant") == 0 &&
           (!node->domain[0] || strcmp(node->domain, "ai.onnx") == 0);
}

/* Counts the nodes per op type and which devices support each. */
static int collect_ops(inspect_state *s)
{
    size_t n = vkml_model_node_count(s->model);
    for (size_t i = 0; i < n; i++) {
        vkml_node_info node;
        vkml_error err = {0};
        vkml_status st = vkml_model_node(s->model, i, &node, &err);
        if (st != VKML_OK)
            return cli_error_vkml("reading the nodes", st, &err);
        op_usage *u = find_or_add_op(s, &node);
        if (!u)
            return cli_error("out of memory");
        u->count++;
        u->value = is_value_node(&node);
        for (int d = 0; d < s->n_devices && !u->value; d++)
            u->supported[d] +=
                vkml_context_device_supports_node(s->ctx, s->devices[d], s->model, i, NULL, 0);
    }
    return CLI_EXIT_OK;
}

static int compare_ops(const void *a, const void *b)
{
    const op_usage *x = a, *y = b;
    int c = strcmp(x->domain, y->domain);
    return c ? c : strcmp(x->op_type, y->op_type);
}

static void print_op_row(const inspect_state *s, const op_usage *u)
{
    char name[128], cell[32];
    snprintf(name, sizeof(name), "%s%s%s", u->domain, u->domain[0] ? "." : "", u->op_type);
    printf("  %-24s %5zu", name, u->count);
    for (int d = 0; d < s->n_devices; d++) {
        if (u->value)
            snprintf(cell, sizeof(cell), "value");
        else if (u->supported[d] == u->count)
            snprintf(cell, sizeof(cell), "yes");
        else if (u->supported[d] == 0)
            snprintf(cell, sizeof(cell), "no");
        else
            snprintf(cell, sizeof(cell), "%zu/%zu", u->supported[d], u->count);
        printf(d + 1 < s->n_devices ? "  %-5s" : "  %s", cell);
    }
    printf("\n");
}

static void print_ops_table(inspect_state *s)
{
    char label[16];
    qsort(s->ops, s->n_ops, sizeof(*s->ops), compare_ops);
    printf("ops (%zu types, %zu nodes):\n", s->n_ops, vkml_model_node_count(s->model));
    printf("  %-24s %5s", "op", "count");
    for (int d = 0; d < s->n_devices; d++)
        printf(d + 1 < s->n_devices ? "  %-5s" : "  %s",
               cli_device_label(s->devices[d], label, sizeof(label)));
    printf("\n");
    for (size_t i = 0; i < s->n_ops; i++)
        print_op_row(s, &s->ops[i]);
}

/* One line per (node, device) that cannot run, with the library's reason. */
static void print_unsupported(const inspect_state *s)
{
    bool header = false;
    char label[16];
    for (size_t i = 0; i < vkml_model_node_count(s->model); i++) {
        vkml_node_info node;
        vkml_error err = {0};
        if (vkml_model_node(s->model, i, &node, &err) != VKML_OK || is_value_node(&node))
            continue;
        for (int d = 0; d < s->n_devices; d++) {
            char why[512] = "";
            if (vkml_context_device_supports_node(s->ctx, s->devices[d], s->model, i, why,
                                                  sizeof(why)))
                continue;
            if (!header)
                printf("not supported:\n");
            header = true;
            printf("  node %zu %s '%s' on %s: %s\n", i, node.op_type, node.name,
                   cli_device_label(s->devices[d], label, sizeof(label)),
                   why[0] ? why : "(no reason given)");
        }
    }
}

/* Distinct epilogue fusions (op + what it absorbed) listed; more are counted, not named. */
#define INSPECT_MAX_FUSIONS 64

/* The nodes that absorbed others at load (passes/fuse_epilogue.c), by kind. */
static void print_epilogues(const inspect_state *s)
{
    struct fusion_kind {
        const char *op, *fused;
        size_t count;
    } kinds[INSPECT_MAX_FUSIONS];
    size_t n_kinds = 0, total = 0;
    for (size_t i = 0; i < vkml_model_node_count(s->model); i++) {
        vkml_node_info node;
        vkml_error err = {0};
        if (vkml_model_node(s->model, i, &node, &err) != VKML_OK || !node.fused[0])
            continue;
        total++;
        size_t k = 0;
        while (k < n_kinds &&
               (strcmp(kinds[k].op, node.op_type) || strcmp(kinds[k].fused, node.fused)))
            k++;
        if (k == n_kinds && n_kinds < INSPECT_MAX_FUSIONS)
            kinds[n_kinds++] = (struct fusion_kind){node.op_type, node.fused, 0};
        if (k < n_kinds)
            kinds[k].count++;
    }
    if (!total)
        return;
    printf("fused epilogues (%zu nodes; VKML_NO_FUSE=1 loads unfused):\n", total);
    for (size_t k = 0; k < n_kinds; k++) {
        char name[160];
        snprintf(name, sizeof(name), "%s+%s", kinds[k].op, kinds[k].fused);
        printf("  %-32s %5zu\n", name, kinds[k].count);
    }
}

typedef struct inspect_options {
    bool plan, data_parallel;
    const char *device, *budget, *precision;
} inspect_options;

/* The plan's fused groups, each one node and one dispatch. */
static void print_fused_groups(const vkml_session *session)
{
    size_t n = vkml_session_plan_fused_count(session);
    printf("fused groups (%zu):\n", n);
    for (size_t i = 0; i < n; i++) {
        vkml_plan_fused f;
        char dev[16];
        if (vkml_session_plan_fused(session, i, &f))
            printf("  %-4s fused: %s (%zu nodes, 1 dispatch) -> %s\n",
                   cli_device_label(f.device, dev, sizeof(dev)), f.ops, f.n_nodes, f.name);
    }
}

/* Per device, what its memory plan holds for intermediates against the liveness bound. */
static void print_intermediates(const vkml_session *session)
{
    char label[16], held[32], bound[32];
    for (size_t i = 0; i < vkml_session_plan_part_count(session); i++) {
        vkml_plan_part part;
        if (!vkml_session_plan_part(session, i, &part))
            continue;
        double over =
            part.intermediate_bound
                ? 100.0 * ((double)part.intermediate_bytes / (double)part.intermediate_bound - 1.0)
                : 0.0;
        printf("  %-7s intermediates %s (liveness bound %s, %+.1f%%)\n",
               cli_device_label(part.device, label, sizeof(label)),
               cli_format_bytes(part.intermediate_bytes, held, sizeof(held)),
               cli_format_bytes(part.intermediate_bound, bound, sizeof(bound)), over);
    }
}

/* The partition of a session planned over the chosen devices. */
static int print_plan(vkml_context *ctx, const vkml_model *model, const inspect_options *o)
{
    cli_devices devices;
    if (!cli_devices_parse(ctx, o->device, o->budget, &devices) ||
        !cli_precision_parse(o->precision, &devices))
        return CLI_EXIT_FAILURE;
    vkml_session_params params = {.data_parallel = o->data_parallel};
    cli_devices_apply(&devices, &params);
    vkml_session *session = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_session_create(ctx, (vkml_model *)model, &params, &session, &err);
    if (st != VKML_OK)
        return cli_error_vkml("planning the session", st, &err);
    char label[64], w[32], peak[32];
    printf("plan (devices %s", cli_devices_label(ctx, &devices, label, sizeof(label)));
    if (devices.budget)
        printf("; budget %s per GPU", cli_format_bytes(devices.budget, w, sizeof(w)));
    vkml_precision runs = vkml_session_precision(session);
    if (devices.precision != VKML_PRECISION_FP32)
        printf("; precision %s%s%s", vkml_precision_name(devices.precision),
               runs != devices.precision ? ", runs at " : "",
               runs != devices.precision ? vkml_precision_name(runs) : "");
    int copies[VKML_MAX_SESSION_DEVICES];
    int n_copies = vkml_session_replica_count(session, copies, VKML_MAX_SESSION_DEVICES);
    if (n_copies > 1) {
        printf("; data parallel: a copy on each of devices");
        for (int k = 0; k < n_copies && k < VKML_MAX_SESSION_DEVICES; k++)
            printf("%s %d", k ? "," : "", copies[k]);
        printf(", the first shown");
    }
    printf("):\n  %-7s %-44s %6s  %-40s %12s %12s\n", "device", "name", "nodes", "first .. last",
           "weights", "peak tensors");
    for (size_t i = 0; i < vkml_session_plan_part_count(session); i++) {
        vkml_plan_part part;
        vkml_device_info info = {0};
        if (!vkml_session_plan_part(session, i, &part))
            continue;
        vkml_context_device_info(ctx, part.device, &info, &err);
        char range[512];
        snprintf(range, sizeof(range), "%s .. %s", part.first_node, part.last_node);
        printf("  %-7s %-44.44s %6zu  %-40s %12s %12s\n",
               cli_device_label(part.device, label, sizeof(label)), info.name, part.n_nodes,
               part.n_nodes ? range : "-", cli_format_bytes(part.weight_bytes, w, sizeof(w)),
               cli_format_bytes(part.peak_bytes, peak, sizeof(peak)));
    }
    print_intermediates(session);
    size_t n_transfers = vkml_session_plan_transfer_count(session);
    printf("transfers per run (%zu):\n", n_transfers);
    for (size_t i = 0; i < n_transfers; i++) {
        vkml_plan_transfer t;
        char from[16], to[16];
        if (vkml_session_plan_transfer(session, i, &t))
            printf("  %-40s %4s -> %-4s %12s  %s\n", t.value,
                   cli_device_label(t.from, from, sizeof(from)),
                   cli_device_label(t.to, to, sizeof(to)), cli_format_bytes(t.bytes, w, sizeof(w)),
                   t.shared_host ? "shared host memory" : "host copy");
    }
    print_fused_groups(session);
    vkml_session_destroy(&session);
    return CLI_EXIT_OK;
}

static int inspect_model(vkml_context *ctx, const char *path, const inspect_options *o)
{
    vkml_model *model = NULL;
    vkml_error err = {0};
    /* Inspection shows models vkml cannot run yet too: their missing ops are listed. */
    vkml_model_params params = {.path = path, .allow_unsupported = true};
    vkml_status st = vkml_model_load(&params, &model, &err);
    if (st != VKML_OK)
        return cli_error_vkml(path, st, &err);
    inspect_state s = {.ctx = ctx, .model = model};
    int n_gpus = vkml_context_device_count(ctx);
    s.devices[s.n_devices++] = VKML_DEVICE_CPU;
    for (int i = 0; i < n_gpus && s.n_devices < INSPECT_MAX_DEVICES; i++)
        s.devices[s.n_devices++] = i;

    printf("model: %s\nopset: %lld\n", path, (long long)vkml_model_opset(model));
    print_values_list("inputs", model, true);
    print_values_list("outputs", model, false);
    int rc = collect_ops(&s);
    if (rc == CLI_EXIT_OK) {
        print_ops_table(&s);
        print_epilogues(&s);
        print_unsupported(&s);
    }
    if (rc == CLI_EXIT_OK && o->plan)
        rc = print_plan(ctx, model, o);
    free(s.ops);
    vkml_model_destroy(&model);
    return rc;
}

static int inspect_main(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"ops", no_argument, NULL, 'o'},
                                         {"plan", no_argument, NULL, 'p'},
                                         {"device", required_argument, NULL, 'd'},
                                         {"budget", required_argument, NULL, 'b'},
                                         {"precision", required_argument, NULL, 'P'},
                                         {"no-fuse", no_argument, NULL, 'F'},
                                         {"data-parallel", no_argument, NULL, 'D'},
                                         {0}};
    inspect_options o = {0};
    int c;
    while ((c = getopt_long(argc, argv, ":hd:b:P:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return cli_usage(&cli_cmd_inspect);
        case 'o':
            optind = 0; /* GNU getopt: start over for the other command */
            return cli_cmd_ops.main(1, (char *[]){"ops", NULL});
        case 'p': o.plan = true; break;
        case 'd': o.device = optarg; break;
        case 'b': o.budget = optarg; break;
        case 'P': o.precision = optarg; break;
        case 'F': cli_set_no_fuse(); break;
        case 'D': o.data_parallel = true; break;
        default: return cli_option_error(&cli_cmd_inspect, c, argv);
        }
    }
    if ((o.device || o.budget || o.precision || o.data_parallel) && !o.plan)
        return cli_usage_error(&cli_cmd_inspect,
                               "--device, --budget, --precision and --data-parallel go with "
                               "--plan");
    if (argc - optind != 1)
        return cli_usage_error(&cli_cmd_inspect, "expected one MODEL argument");
    vkml_context *ctx = cli_context_create(false);
    if (!ctx)
        return CLI_EXIT_FAILURE;
    int rc = inspect_model(ctx, argv[optind], &o);
    vkml_context_destroy(&ctx);
    return rc;
}
