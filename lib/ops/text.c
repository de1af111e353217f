/* Shape functions of the string ops (see text.h). */
#include "ops/text.h"
#include "ops/op_decls.h"

#include <string.h>

/* Fails (INVALID_MODEL) unless input i is a string tensor. */
static vkml_status require_strings(const graph_value *values, const graph_node *node, int i,
                                   vkml_error *err)
{
    vkml_status st = op_require_input(values, node, i, err);
    if (st)
        return st;
    const graph_value *x = &values[node->inputs[i]];
    if (x->dtype != VKML_DTYPE_STRING)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: input %d '%s' is %s, not string",
                         node->op_type, i, x->name, vkml_dtype_name(x->dtype));
    return VKML_OK;
}

/* StringNormalizer */

/* The locales whose case mapping is the C library's Unicode one (C.UTF-8): the C/POSIX
 * locale, and English ("en", "en_US", "en-GB", with or without ".UTF-8"). Others (Turkish
 * dotted i, ...) map some letters differently: refused rather than answered wrong. */
static bool known_locale(const char *locale)
{
    static const char *const exact[] = {"", "C", "POSIX", "C.UTF-8", "C.utf8"};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(exact); i++)
        if (strcmp(locale, exact[i]) == 0)
            return true;
    if (strncmp(locale, "en", 2) != 0)
        return false;
    const char *p = locale + 2;
    if ((p[0] == '_' || p[0] == '-') && p[1] >= 'A' && p[1] <= 'Z' && p[2] >= 'A' && p[2] <= 'Z')
        p += 3;
    return !*p || strcmp(p, ".UTF-8") == 0 || strcmp(p, ".utf8") == 0 || strcmp(p, ".utf-8") == 0;
}

vkml_status strnorm_parse(const graph_node *node, void *params, vkml_error *err)
{
    strnorm_params *p = params;
    static const op_attr_spec specs[] = {{"case_change_action", GRAPH_ATTR_STRING},
                                         {"is_case_sensitive", GRAPH_ATTR_INT},
                                         {"locale", GRAPH_ATTR_STRING},
                                         {"stopwords", GRAPH_ATTR_STRINGS}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    const char *action = graph_attr_string(node, "case_change_action", "NONE");
    static const char *const actions[] = {"NONE", "LOWER", "UPPER"};
    size_t a = 0;
    while (a < VKML_ARRAY_SIZE(actions) && strcmp(action, actions[a]) != 0)
        a++;
    if (a == VKML_ARRAY_SIZE(actions))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "StringNormalizer: case_change_action '%s' is not LOWER, UPPER or NONE",
                         action);
    const char *locale = graph_attr_string(node, "locale", "");
    if (!known_locale(locale))
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "StringNormalizer: locale '%s' is not supported (only C and English "
                         "locales: their case mapping is the Unicode default)",
                         locale);
    const graph_attr *words = graph_node_attr(node, "stopwords");
    p->case_change = (strnorm_case)a;
    p->case_sensitive = graph_attr_int(node, "is_case_sensitive", 0) != 0;
    p->stopwords = words ? words->strings : NULL;
    p->n_stopwords = words ? words->count : 0;
    return VKML_OK;
}

vkml_status strnorm_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    char shape[160];
    vkml_status st;
    if ((st = op_require_counts(node, 1, 1, 1, err)) ||
        (st = require_strings(values, node, 0, err)))
        return st;
    const graph_value *x = &values[node->inputs[0]];
    if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "StringNormalizer: input '%s' is %s, not [C] or [1, C]", x->name,
                         graph_shape_string(x->rank, x->dims, shape, sizeof(shape)));
    /* At most C words are kept; none kept gives one empty string. */
    int64_t dims[2] = {1, 1};
    int64_t words = x->dims[x->rank - 1];
    dims[x->rank - 1] = words > 0 ? words : 1;
    op_set_output(values, node, 0, VKML_DTYPE_STRING, x->rank, dims);
    graph_node_output(values, node, 0)->data_dependent = true;
    return VKML_OK;
}

/* StringConcat */

vkml_status strconcat_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    vkml_status st;
    if ((st = op_require_counts(node, 2, 2, 1, err)) ||
        (st = require_strings(values, node, 0, err)) ||
        (st = require_strings(values, node, 1, err)))
        return st;
    const graph_value *a = &values[node->inputs[0]], *b = &values[node->inputs[1]];
    int rank;
    int64_t dims[VKML_MAX_RANK];
    if ((st = op_broadcast(node, a->rank, a->dims, b->rank, b->dims, &rank, dims, err)))
        return st;
    op_set_output(values, node, 0, VKML_DTYPE_STRING, rank, dims);
    return VKML_OK;
}
