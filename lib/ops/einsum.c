/* Einsum: equation parsing (once, at load) and the plan shapes make of it. */
#include "ops/einsum.h"
#include "ops/op_decls.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int letter_code(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return 26 + (c - 'a');
    return -1;
}

/* One term (up to ',' or '-' or the end) into codes; *s advances past it. */
static vkml_status parse_term(const char **s, uint8_t *codes, int *len, bool *ellipsis,
                              vkml_error *err)
{
    int n = 0;
    bool seen_ellipsis = false;
    for (const char *p = *s; *p && *p != ',' && *p != '-'; p++, *s = p) {
        if (*p == ' ')
            continue;
        int code = letter_code(*p);
        if (*p == '.' && !strncmp(p, "...", 3) && !seen_ellipsis) {
            seen_ellipsis = true;
            code = EINSUM_ELLIPSIS;
            p += 2;
        } else if (code < 0) {
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Einsum: unexpected '%c' in the equation", *p);
        }
        if (n >= EINSUM_MAX_TERM)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Einsum: a term has more than %d labels", VKML_MAX_RANK);
        codes[n++] = (uint8_t)code;
    }
    *len = n;
    *ellipsis |= seen_ellipsis;
    return VKML_OK;
}

vkml_status einsum_parse(const graph_node *node, void *params, vkml_error *err)
{
    einsum_params *p = params;
    static const op_attr_spec specs[] = {{"equation", GRAPH_ATTR_STRING}};
    vkml_status st = op_check_attr_types(node, specs, 1, err);
    if (st)
        return st;
    const char *eq = graph_attr_string(node, "equation", NULL);
    if (!eq)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Einsum: attribute 'equation' is missing");
    const char *s = eq;
    for (;;) {
        if (p->n_terms >= EINSUM_MAX_INPUTS)
            return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Einsum: more than %d operands",
                             EINSUM_MAX_INPUTS);
        int t = p->n_terms++;
        if ((st = parse_term(&s, p->term[t], &p->term_len[t], &p->has_ellipsis, err)))
            return st;
        if (*s != ',')
            break;
        s++;
    }
    if (*s == '-') {
        if (s[1] != '>')
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Einsum: '-' without '>' in '%s'", eq);
        s += 2;
        p->explicit_output = true;
        bool out_ellipsis = false;
        if ((st = parse_term(&s, p->out, &p->out_len, &out_ellipsis, err)))
            return st;
        if (*s)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Einsum: trailing '%s' in '%s'", s, eq);
    }
    return VKML_OK;
}

/* Labels of input t's term over its rank: ellipsis dims numbered from the right so that
 * they broadcast across operands. */
static vkml_status term_labels(const einsum_params *p, int t, const graph_value *x, int *n_ell,
                               uint8_t *labels, vkml_error *err)
{
    bool has_ell = memchr(p->term[t], EINSUM_ELLIPSIS, (size_t)p->term_len[t]) != NULL;
    int named = p->term_len[t] - (has_ell ? 1 : 0);
    int ell = x->rank - named;
    if (ell < 0 || (!has_ell && ell != 0))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Einsum: term %d has %d labels, input '%s' rank %d", t, named, x->name,
                         x->rank);
    int d = 0;
    for (int i = 0; i < p->term_len[t]; i++) {
        if (p->term[t][i] != EINSUM_ELLIPSIS) {
            labels[d++] = p->term[t][i];
            continue;
        }
        for (int e = 0; e < ell; e++)
            labels[d++] = (uint8_t)(EINSUM_LETTERS + (ell - 1 - e));
    }
    *n_ell = ell;
    return VKML_OK;
}

static vkml_status bind_sizes(const graph_node *node, const graph_value *x, const uint8_t *labels,
                              einsum_plan *plan, int t, vkml_error *err)
{
    int64_t stride = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        int l = labels[d];
        int64_t n = x->dims[d];
        bool ell = l >= EINSUM_LETTERS;
        if (plan->size[l] < 0 || (ell && plan->size[l] == 1)) {
            plan->size[l] = n;
        } else if (plan->size[l] != n && !(ell && n == 1)) {
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: label size %lld of input '%s' differs from %lld elsewhere",
                             node->op_type, (long long)n, x->name, (long long)plan->size[l]);
        }
        if (n != 1)
            plan->stride[t][l] += stride;
        stride *= n;
    }
    return VKML_OK;
}

/* Implicit output: ellipsis dims, then the letters used exactly once, in ASCII order. */
static void implicit_output(const einsum_params *p, const int *uses, int n_ell, einsum_plan *plan)
{
    for (int e = n_ell - 1; e >= 0; e--)
        plan->out[plan->out_rank++] = (uint8_t)(EINSUM_LETTERS + e);
    for (int l = 0; l < EINSUM_LETTERS; l++)
        if (uses[l] == 1)
            plan->out[plan->out_rank++] = (uint8_t)l;
    (void)p;
}

static vkml_status explicit_output(const graph_node *node, const einsum_params *p, const int *uses,
                                   int n_ell, einsum_plan *plan, vkml_error *err)
{
    for (int i = 0; i < p->out_len; i++) {
        int l = p->out[i];
        if (l == EINSUM_ELLIPSIS) {
            for (int e = n_ell - 1; e >= 0; e--)
                plan->out[plan->out_rank++] = (uint8_t)(EINSUM_LETTERS + e);
            continue;
        }
        if (!uses[l])
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "%s: output label '%c' appears in no input", node->op_type,
                             l < 26 ? 'A' + l : 'a' + (l - 26));
        for (int j = 0; j < plan->out_rank; j++)
            if (plan->out[j] == l)
                return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: output label '%c' repeated",
                                 node->op_type, l < 26 ? 'A' + l : 'a' + (l - 26));
        plan->out[plan->out_rank++] = (uint8_t)l;
    }
    return VKML_OK;
}

vkml_status einsum_plan_build(const graph_value *values, const graph_node *node, einsum_plan *plan,
                              vkml_error *err)
{
    const einsum_params *p = node->params;
    vkml_status st;
    if (node->n_inputs != p->n_terms)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Einsum: %d inputs for %d terms",
                         node->n_inputs, p->n_terms);
    memset(plan, 0, sizeof(*plan));
    plan->n_inputs = p->n_terms;
    plan->n_labels = EINSUM_MAX_LABELS;
    for (int l = 0; l < EINSUM_MAX_LABELS; l++)
        plan->size[l] = -1;
    int uses[EINSUM_MAX_LABELS] = {0}, n_ell = 0;
    for (int t = 0; t < p->n_terms; t++) {
        if ((st = op_require_input(values, node, t, err)))
            return st;
        const graph_value *x = &values[node->inputs[t]];
        uint8_t labels[VKML_MAX_RANK];
        int ell = 0;
        if ((st = term_labels(p, t, x, &ell, labels, err)) ||
            (st = bind_sizes(node, x, labels, plan, t, err)))
            return st;
        n_ell = ell > n_ell ? ell : n_ell;
        for (int d = 0; d < x->rank; d++) {
            uses[labels[d]]++;
            plan->used_by[labels[d]] |= (uint8_t)(1u << t);
        }
    }
    if ((st = p->explicit_output ? explicit_output(node, p, uses, n_ell, plan, err)
                                 : (implicit_output(p, uses, n_ell, plan), VKML_OK)))
        return st;
    if (plan->out_rank > VKML_MAX_RANK)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Einsum: output rank %d", plan->out_rank);
    bool in_out[EINSUM_MAX_LABELS] = {false};
    plan->out_count = plan->sum_count = 1;
    bool overflow = false;
    for (int i = 0; i < plan->out_rank; i++) {
        in_out[plan->out[i]] = true;
        overflow |=
            __builtin_mul_overflow(plan->out_count, plan->size[plan->out[i]], &plan->out_count);
    }
    for (int l = 0; l < EINSUM_MAX_LABELS; l++)
        if (uses[l] && !in_out[l]) {
            plan->sum[plan->n_sum++] = (uint8_t)l;
            overflow |= __builtin_mul_overflow(plan->sum_count, plan->size[l], &plan->sum_count);
        }
    int64_t work;
    if (overflow || __builtin_mul_overflow(plan->sum_count, plan->out_count, &work) ||
        work > EINSUM_MAX_WORK)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "Einsum: over 2^40 products (%lld outputs x %lld terms each)",
                         (long long)plan->out_count, (long long)plan->sum_count);
    return VKML_OK;
}

vkml_status einsum_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    einsum_plan plan;
    vkml_status st = einsum_plan_build(values, node, &plan, err);
    if (st)
        return st;
    vkml_dtype t = values[node->inputs[0]].dtype;
    for (int i = 1; i < node->n_inputs; i++)
        if (values[node->inputs[i]].dtype != t)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "Einsum: inputs differ in dtype");
    if (t == VKML_DTYPE_BOOL || t == VKML_DTYPE_STRING)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "Einsum: dtype %s", vkml_dtype_name(t));
    int64_t dims[VKML_MAX_RANK];
    for (int i = 0; i < plan.out_rank; i++)
        dims[i] = plan.size[plan.out[i]];
    op_set_output(values, node, 0, t, plan.out_rank, dims);
    return VKML_OK;
}

static bool einsum_refuse(char *why, size_t why_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
    return false;
}

/* The output labels of size > 1, in order. */
static int out_labels(const einsum_plan *plan, int *labels)
{
    int n = 0;
    for (int i = 0; i < plan->out_rank; i++)
        if (plan->size[plan->out[i]] > 1)
            labels[n++] = plan->out[i];
    return n;
}

bool einsum_matmul_form(const einsum_plan *plan, einsum_matmul *mm, char *why, size_t why_size)
{
    if (plan->n_inputs != 2)
        return einsum_refuse(why, why_size, "Einsum of %d operands, not 2", plan->n_inputs);
    int out[EINSUM_MAX_LABELS], n_out = out_labels(plan, out);
    bool in_out[EINSUM_MAX_LABELS] = {false};
    for (int i = 0; i < n_out; i++)
        in_out[out[i]] = true;
    mm->k = -1;
    for (int l = 0; l < EINSUM_MAX_LABELS; l++) {
        if (!plan->used_by[l] || plan->size[l] <= 1 || in_out[l])
            continue;
        if (plan->used_by[l] != 3)
            return einsum_refuse(why, why_size, "Einsum: a label summed over one operand");
        if (mm->k >= 0)
            return einsum_refuse(why, why_size, "Einsum: more than one contracted label");
        mm->k = l;
    }
    int tail = 0;
    if (n_out >= 1 && plan->used_by[out[n_out - 1]] != 3) {
        tail = 1;
        int prev = n_out >= 2 ? plan->used_by[out[n_out - 2]] : 3;
        if (prev != 3 && prev != plan->used_by[out[n_out - 1]])
            tail = 2;
    }
    mm->n_batch = n_out - tail;
    memcpy(mm->batch, out, sizeof(int) * (size_t)mm->n_batch);
    int first = tail ? out[n_out - tail] : -1;
    bool swapped = first >= 0 && plan->used_by[first] == 2;
    mm->a = swapped ? 1 : 0;
    mm->b = swapped ? 0 : 1;
    mm->m = first;
    mm->n = tail == 2 ? out[n_out - 1] : -1;
    return true;
}
