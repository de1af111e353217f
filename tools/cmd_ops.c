/* `vkml ops`: the op table of the library (vkml_op_count/vkml_op), as text or Markdown.
 * docs/ops.md is this command's --markdown output (tools/gen-ops-doc.sh). */
#include "cli_util.h"

#include <getopt.h>
#include <string.h>

static int ops_main(int argc, char **argv);

const cli_command cli_cmd_ops = {
    .name = "ops",
    .summary = "list the operators vkml implements (--markdown for docs/ops.md)",
    .usage = "usage: vkml ops [--markdown]\n"
             "Lists the op table: op, domain, opset range, and the element types of the\n"
             "kernels of each kind of device (CPU, Vulkan). --markdown prints docs/ops.md.\n",
    .main = ops_main,
};

static const char *domain_name(const vkml_op_info *op)
{
    return op->domain[0] ? op->domain : "ai.onnx";
}

/* A kernel column: its dtypes and the library that runs some forms, `none` without a
 * kernel, or what replaces the kernel (in buf). */
static const char *kernel_column(const vkml_op_info *op, int kind, const char *none, char *buf,
                                 size_t size)
{
    const vkml_op_kernel *k = &op->kernels[kind];
    if (op->control_flow)
        return "subgraphs: folded, inlined or unrolled at plan time, else run on the host";
    if (op->lowered || !k->present)
        return op->lowered ? "lowered at plan time" : none;
    snprintf(buf, size, k->library[0] ? "%s (%s)" : "%s", k->dtypes, k->library);
    return buf;
}

/* The op table's kinds of device (the first op's: every op lists the same). */
static int kind_count(void)
{
    return vkml_op_count() ? vkml_op(0)->n_kernels : 0;
}

static void print_text(void)
{
    printf("%-24s %-10s %-8s", "op", "domain", "opsets");
    for (int d = 0; d < kind_count(); d++)
        printf(" %s dtypes%*s", vkml_op(0)->kernels[d].device_kind,
               d + 1 < kind_count() ? (int)(33 - strlen(vkml_op(0)->kernels[d].device_kind)) : 0,
               "");
    printf("\n");
    for (size_t i = 0; i < vkml_op_count(); i++) {
        const vkml_op_info *op = vkml_op(i);
        char opsets[32];
        snprintf(opsets, sizeof(opsets), "%d-%d", op->since_version, op->last_version);
        printf("%-24s %-10s %-8s", op->name, domain_name(op), opsets);
        char buf[512];
        for (int d = 0; d < op->n_kernels; d++)
            printf(d + 1 < op->n_kernels ? " %-40s" : " %s",
                   kernel_column(op, d, "-", buf, sizeof(buf)));
        printf("\n");
    }
    printf("%zu ops\n", vkml_op_count());
}

static void print_markdown(void)
{
    size_t n_lowered = 0, n_kernels[VKML_MAX_DEVICE_KINDS] = {0};
    for (size_t i = 0; i < vkml_op_count(); i++) {
        const vkml_op_info *op = vkml_op(i);
        n_lowered += op->lowered;
        for (int d = 0; d < op->n_kernels; d++)
            n_kernels[d] += op->kernels[d].present;
    }
    printf("# Supported operators\n\n"
           "Generated from the op table (`lib/ops/op_list.h`) by `tools/gen-ops-doc.sh`\n"
           "(`vkml ops --markdown`); the test `cli-ops-doc` fails when this file is out of\n"
           "date. Each kind of device has its own kernel registry (`lib/cpu/cpu_kernel_list.h`,\n"
           "`lib/vulkan/vk_kernel_list.h`) with the element types it runs; a node whose op\n"
           "or type a GPU lacks runs on the CPU device inside a GPU session. An op\n"
           "\"lowered at plan time\" has no kernel: a session rewrites it into other ops\n"
           "when it plans the model (the sequence ops become list edits, Identity, Split,\n"
           "Squeeze, Unsqueeze, Concat and constants; `lib/passes/lower_seq.c`), so it runs\n"
           "on every device, for the element types of those ops, where its positions are\n"
           "known at plan time. The control-flow ops (If, Loop, Scan) have no kernel\n"
           "either: an If whose condition a session knows when it plans becomes its\n"
           "branch's nodes, placed like any, and a node of constant inputs becomes\n"
           "constants; any other runs its subgraphs on the host with the CPU kernels, after\n"
           "the planned part of each run (`lib/passes/lower_cf.c`, `lib/passes/cf_run.c`).\n"
           "A kernel library named in a column (oneDNN, on the CPU) runs the forms it\n"
           "names; the kind's own kernels run the rest and are the reference the library\n"
           "is tested against (`tests/ops/test_cpu_library.c`).\n\n"
           "%zu operators",
           vkml_op_count());
    for (int d = 1; d < kind_count(); d++)
        printf(", %zu with a %s kernel", n_kernels[d], vkml_op(0)->kernels[d].device_kind);
    printf(", %zu lowered at plan time.\n\n| Op | Domain | Opsets |", n_lowered);
    for (int d = 0; d < kind_count(); d++)
        printf(" %s |", vkml_op(0)->kernels[d].device_kind);
    printf("\n|----|--------|--------|");
    for (int d = 0; d < kind_count(); d++)
        printf("%.*s|", (int)strlen(vkml_op(0)->kernels[d].device_kind) + 2,
               "--------------------------------");
    printf("\n");
    for (size_t i = 0; i < vkml_op_count(); i++) {
        const vkml_op_info *op = vkml_op(i);
        printf("| %s | %s | %d-%d |", op->name, domain_name(op), op->since_version,
               op->last_version);
        char buf[512];
        for (int d = 0; d < op->n_kernels; d++)
            printf(" %s |", kernel_column(op, d, "no", buf, sizeof(buf)));
        printf("\n");
    }
}

static int ops_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"markdown", no_argument, NULL, 'm'}, {0}};
    bool markdown = false;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        if (c == 'h')
            return cli_usage(&cli_cmd_ops);
        if (c == 'm')
            markdown = true;
        else
            return cli_option_error(&cli_cmd_ops, c, argv);
    }
    if (optind != argc)
        return cli_usage_error(&cli_cmd_ops, "unexpected argument '%s'", argv[optind]);
    if (markdown)
        print_markdown();
    else
        print_text();
    return CLI_EXIT_OK;
}
