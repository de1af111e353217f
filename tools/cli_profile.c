/* `vkml run --profile`: where a run's device time goes, per op and per node, averaged over
 * a number of runs of a session created with vkml_session_params.profile. */
#include "cli_profile.h"
#include "cli_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct op_total {
    char op[96];
    double us;
    size_t nodes;
} op_total;

static int by_us_desc(const void *a, const void *b)
{
    double x = ((const op_total *)a)->us, y = ((const op_total *)b)->us;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int node_by_us_desc(const void *a, const void *b)
{
    double x = ((const vkml_node_time *)a)->us, y = ((const vkml_node_time *)b)->us;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Per op (with its fused epilogue: "Conv+Relu"), the total over the nodes. */
static size_t op_totals(const vkml_node_time *t, size_t n, op_total *ops)
{
    size_t n_ops = 0;
    for (size_t i = 0; i < n; i++) {
        char op[96];
        bool fused_group = strcmp(t[i].op, "FusedElementwise") == 0;
        snprintf(op, sizeof(op), "%s%s%s", t[i].op, t[i].detail[0] && !fused_group ? "+" : "",
                 fused_group ? "" : t[i].detail);
        size_t k = 0;
        while (k < n_ops && strcmp(ops[k].op, op) != 0)
            k++;
        if (k == n_ops)
            ops[n_ops++] = (op_total){0};
        snprintf(ops[k].op, sizeof(ops[k].op), "%s", op);
        ops[k].us += t[i].us;
        ops[k].nodes++;
    }
    qsort(ops, n_ops, sizeof(*ops), by_us_desc);
    return n_ops;
}

static void print_profile(vkml_node_time *t, size_t n, long runs, size_t top)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += t[i].us;
    op_total *ops = calloc(n + 1, sizeof(*ops));
    if (!ops)
        return;
    size_t n_ops = op_totals(t, n, ops);
    printf("profile: %.1f us of device time per run over %zu nodes (mean of %ld runs)\n", total, n,
           runs);
    printf("  %-40s %6s %10s %6s\n", "op", "nodes", "us", "share");
    for (size_t k = 0; k < n_ops; k++)
        printf("  %-40s %6zu %10.1f %5.1f%%\n", ops[k].op, ops[k].nodes, ops[k].us,
               total > 0 ? 100 * ops[k].us / total : 0);
    qsort(t, n, sizeof(*t), node_by_us_desc);
    printf("  slowest nodes:\n");
    for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
        char dev[16];
        printf("  %-40s %-20.20s %4s %10.1f\n", t[i].name, t[i].op,
               cli_device_label(t[i].device, dev, sizeof(dev)), t[i].us);
    }
    free(ops);
}

int cli_profile_runs(vkml_session *s, const vkml_tensor *in, size_t n_in, vkml_tensor *out,
                     size_t n_out, long runs, size_t top)
{
    vkml_error err = {0};
    size_t n = 0;
    vkml_status st = vkml_session_run(s, in, n_in, out, n_out, &err);
    if (st == VKML_OK)
        st = vkml_session_profile(s, NULL, 0, &n, &err);
    if (st != VKML_OK)
        return cli_error_vkml("profile", st, &err);
    vkml_node_time *sum = calloc(n + 1, sizeof(*sum)), *t = calloc(n + 1, sizeof(*t));
    int rc = sum && t ? CLI_EXIT_OK : cli_error("out of memory");
    for (long r = 0; rc == CLI_EXIT_OK && r < runs; r++) {
        size_t got = 0;
        st = vkml_session_run(s, in, n_in, out, n_out, &err);
        if (st == VKML_OK)
            st = vkml_session_profile(s, t, n, &got, &err);
        if (st != VKML_OK) {
            rc = cli_error_vkml("profile", st, &err);
            break;
        }
        if (got != n) {
            rc = cli_error("profile: %zu nodes ran, then %zu", n, got);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            if (r == 0)
                sum[i] = t[i];
            else
                sum[i].us += t[i].us;
        }
    }
    if (rc == CLI_EXIT_OK) {
        for (size_t i = 0; i < n; i++)
            sum[i].us /= (double)runs;
        print_profile(sum, n, runs, top);
    }
    free(sum);
    free(t);
    return rc;
}
