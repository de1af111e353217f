/*
 * Losses (lib/ops/loss.c) on the op harness (suite 'ops'): NegativeLogLikelihoodLoss and
 * SoftmaxCrossEntropyLoss with each reduction, class weights and ignore_index, known
 * values on the CPU (the Vulkan devices leave them to it), and bad labels and attributes.
 */
#include "op_harness.h"

#include <stdio.h>

/* A loss node: scores [3, 4, 2], labels [3, 2] (label 9 is out of range unless ignored). */
static void loss_case(const char *op, const char *reduction, bool weights, bool ignore,
                      const int64_t *labels, bool log_prob, double want, const char *error)
{
    char label[128];
    snprintf(label, sizeof(label), "%s %s%s%s%s", op, reduction, weights ? " weights" : "",
             ignore ? " ignore_index" : "", error ? " (bad label)" : "");
    oh_case *c = oh_new(op, 13);
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)((i * 7) % 5) - 2.0f; /* NLL takes them as log-probabilities */
    oh_const(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){3, 4, 2}, x);
    oh_const(c, VKML_DTYPE_INT64, 2, (int64_t[]){3, 2}, labels);
    if (weights)
        oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, (float[]){1, 2, 0.5f, 1});
    oh_attr_string(c, "reduction", reduction);
    if (ignore)
        oh_attr_int(c, "ignore_index", 9);
    if (log_prob)
        oh_outputs(c, 2);
    oh_expect_gpu(c, false);
    float w = (float)want; /* oh_expect keeps the pointer until oh_run */
    if (error)
        oh_expect_error(c, VKML_ERROR_INVALID_ARGUMENT, error);
    else if (want == want)
        oh_expect(c, 0, &w);
    oh_run(c, label, OH_BOUND_SUM);
}

static void test_losses(void)
{
    const int64_t labels[] = {0, 1, 2, 3, 1, 0}, ignored[] = {0, 9, 2, 3, 9, 0};
    /* NLL known values: -x[n, label, d] summed (x from loss_case's formula). */
    double sum = 0, wsum = 0, wl = 0;
    const float wt[] = {1, 2, 0.5f, 1};
    for (int n = 0; n < 3; n++)
        for (int d = 0; d < 2; d++) {
            int64_t l = labels[n * 2 + d];
            double v = (double)(((n * 8 + l * 2 + d) * 7) % 5) - 2.0;
            sum -= v;
            wl -= v * wt[l];
            wsum += wt[l];
        }
    const char *ops[] = {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"};
    for (int o = 0; o < 2; o++) {
        bool nll = o == 0;
        loss_case(ops[o], "sum", false, false, labels, false, nll ? sum : 0.0 / 0.0, NULL);
        loss_case(ops[o], "mean", true, false, labels, !nll, nll ? wl / wsum : 0.0 / 0.0, NULL);
        loss_case(ops[o], "none", true, true, ignored, !nll, 0.0 / 0.0, NULL);
        loss_case(ops[o], "mean", false, true, ignored, false, 0.0 / 0.0, NULL);
        loss_case(ops[o], "sum", false, false, ignored, false, 0.0, "outside [0, 4)");
    }
    oh_case *c = oh_new("SoftmaxCrossEntropyLoss", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, -1, 1);
    oh_const_i64(c, 3, (int64_t[]){0, 1, 2});
    oh_attr_string(c, "reduction", "average");
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "reduction 'average'");
    oh_run(c, "SoftmaxCrossEntropyLoss bad reduction", OH_BOUND_EXACT);
}

int main(void)
{
    test_losses();
    return oh_finish();
}
