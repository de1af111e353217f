#pragma once
/* Einsum: the equation parsed once into label codes; shapes resolve it into a size per
 * label and an element stride per label and operand (a label repeated in one term, a
 * diagonal, adds its strides). Ellipsis dims become labels of their own. */
#include "ops/op.h"

#define EINSUM_MAX_INPUTS 8
#define EINSUM_LETTERS 52                                  /* A-Z then a-z (ASCII order) */
#define EINSUM_ELLIPSIS 127                                /* in a term: where "..." stands */
#define EINSUM_MAX_LABELS (EINSUM_LETTERS + VKML_MAX_RANK) /* letters, then ellipsis dims */
#define EINSUM_MAX_TERM (VKML_MAX_RANK + 1)
/* Products (outputs x summed terms) one node may ask for: more is refused. */
#define EINSUM_MAX_WORK ((int64_t)1 << 40)

typedef struct einsum_params {
    int n_terms; /* inputs */
    int term_len[EINSUM_MAX_INPUTS];
    uint8_t term[EINSUM_MAX_INPUTS][EINSUM_MAX_TERM]; /* label codes or EINSUM_ELLIPSIS */
    bool has_ellipsis;
    bool explicit_output; /* "->" given */
    int out_len;
    uint8_t out[EINSUM_MAX_TERM];
} einsum_params;

/* The equation applied to the input shapes. */
typedef struct einsum_plan {
    int n_inputs;
    int n_labels;
    int64_t size[EINSUM_MAX_LABELS];
    int64_t stride[EINSUM_MAX_INPUTS][EINSUM_MAX_LABELS]; /* 0 where absent or broadcast */
    uint8_t used_by[EINSUM_MAX_LABELS];                   /* bit t: input t has the label */
    int out_rank;
    uint8_t out[EINSUM_MAX_LABELS]; /* output labels, outermost first */
    int n_sum;
    uint8_t sum[EINSUM_MAX_LABELS]; /* labels summed over */
    int64_t out_count, sum_count;
} einsum_plan;

vkml_status einsum_plan_build(const graph_value *values, const graph_node *node, einsum_plan *plan,
                              vkml_error *err);

/* A two-operand equation as a batched matrix product Y[batch.., m, n] = sum_k A B: the
 * output's last one or two labels (each of one operand only, not the same one) are the
 * row and column labels, the rest of the output batch labels (stride 0 in an operand
 * without them: a broadcast), and at most one label outside the output, of both operands,
 * is contracted. Labels of size 1 play no part. */
typedef struct einsum_matmul {
    int a, b;    /* the inputs playing A and B (swapped for an output [.., n, m]) */
    int m, n, k; /* labels, -1 when absent (size 1) */
    int n_batch;
    int batch[VKML_MAX_RANK]; /* output order */
} einsum_matmul;

/* Whether the plan has that form (why says why not). */
bool einsum_matmul_form(const einsum_plan *plan, einsum_matmul *mm, char *why, size_t why_size);
