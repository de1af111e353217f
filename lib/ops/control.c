/* Attributes and checks of If, Loop and Scan (ops/control.h). */
#include "ops/control.h"
#include "ops/op_decls.h"

#include <stdio.h>

/* "'a', 'b'" for a graph's inputs or outputs, into buf. */
static const char *value_names(const graph *g, const int *list, int count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s'%s'", i ? ", " : "",
                                 g->values[list[i]].name);
    return buf;
}

static vkml_status get_body(const graph_node *node, const char *name, const graph **out,
                            vkml_error *err)
{
    const graph_attr *a = graph_node_attr(node, name);
    if (!a || a->type != GRAPH_ATTR_GRAPH || !a->graph)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: attribute '%s' (a graph) is required",
                         node->op_type, name);
    *out = a->graph;
    return VKML_OK;
}

/* The subgraph takes `inputs` inputs and gives `outputs` outputs, else INVALID_MODEL with
 * the names it declares. */
static vkml_status check_signature(const graph_node *node, const char *name, const graph *body,
                                   int inputs, int outputs, const char *why, vkml_error *err)
{
    char names[400];
    if (body->n_inputs != inputs)
        return vkml_fail(
            err, VKML_ERROR_INVALID_MODEL, "%s: %s declares %d inputs (%s); %s, so it must take %d",
            node->op_type, name, body->n_inputs,
            value_names(body, body->inputs, body->n_inputs, names, sizeof(names)), why, inputs);
    if (outputs >= 0 && body->n_outputs != outputs)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: %s declares %d outputs (%s); %s, so it must give %d", node->op_type,
                         name, body->n_outputs,
                         value_names(body, body->outputs, body->n_outputs, names, sizeof(names)),
                         why, outputs);
    return VKML_OK;
}

/* Inputs from `first` on are present (carried values, scan inputs, the condition). */
static vkml_status check_present(const graph_node *node, int first, vkml_error *err)
{
    for (int k = first; k < cf_explicit_inputs(node); k++)
        if (node->inputs[k] < 0)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: input %d is empty", node->op_type,
                             k);
    return VKML_OK;
}

OP_PARSE_DECL(if_parse)
{
    cf_params *p = params;
    char why[160];
    vkml_status st = get_body(node, "then_branch", &p->bodies[0], err);
    if (st == VKML_OK)
        st = get_body(node, "else_branch", &p->bodies[1], err);
    p->n_bodies = 2;
    snprintf(why, sizeof(why), "the node has %d outputs", node->n_outputs);
    if (st == VKML_OK)
        st = check_signature(node, "then_branch", p->bodies[0], 0, node->n_outputs, why, err);
    if (st == VKML_OK)
        st = check_signature(node, "else_branch", p->bodies[1], 0, node->n_outputs, why, err);
    if (st == VKML_OK && cf_explicit_inputs(node) != 1)
        st = vkml_fail(err, VKML_ERROR_INVALID_MODEL, "If: takes one input (the condition), not %d",
                       cf_explicit_inputs(node));
    return st == VKML_OK ? check_present(node, 0, err) : st;
}

OP_PARSE_DECL(loop_parse)
{
    cf_params *p = params;
    char why[160];
    vkml_status st = get_body(node, "body", &p->bodies[0], err);
    p->n_bodies = 1;
    int carried = cf_explicit_inputs(node) - 2;
    if (st == VKML_OK && carried < 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Loop: needs the trip count and condition inputs (empty names when "
                         "omitted), it has %d inputs",
                         cf_explicit_inputs(node));
    snprintf(why, sizeof(why), "the node carries %d values", carried);
    if (st == VKML_OK)
        st = check_signature(node, "the body", p->bodies[0], 2 + carried, -1, why, err);
    int scans = st == VKML_OK ? p->bodies[0]->n_outputs - 1 - carried : 0;
    if (st == VKML_OK && (scans < 0 || node->n_outputs != carried + scans))
        st = vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                       "Loop: the body gives %d outputs (the condition, %d carried values and "
                       "the scan outputs), the node has %d outputs",
                       p->bodies[0]->n_outputs, carried, node->n_outputs);
    return st == VKML_OK ? check_present(node, 2, err) : st;
}

/* A Scan attribute of ints: absent, or `count` of them, each in [lo, hi] when lo <= hi. */
static vkml_status scan_ints(const graph_node *node, const char *name, int count, int64_t lo,
                             int64_t hi, const int64_t **out, vkml_error *err)
{
    size_t n = 0;
    *out = graph_attr_ints(node, name, &n);
    if (*out && (int)n != count)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Scan: attribute '%s' has %zu values, not %d", name, n, count);
    for (size_t i = 0; *out && lo <= hi && i < n; i++)
        if ((*out)[i] < lo || (*out)[i] > hi)
            return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                             "Scan: attribute '%s' value %lld is not %lld or %lld", name,
                             (long long)(*out)[i], (long long)lo, (long long)hi);
    return VKML_OK;
}

OP_PARSE_DECL(scan_parse)
{
    cf_params *p = params;
    char why[160];
    static const op_attr_spec specs[] = {{"num_scan_inputs", GRAPH_ATTR_INT},
                                         {"scan_input_directions", GRAPH_ATTR_INTS},
                                         {"scan_input_axes", GRAPH_ATTR_INTS},
                                         {"scan_output_directions", GRAPH_ATTR_INTS},
                                         {"scan_output_axes", GRAPH_ATTR_INTS}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st == VKML_OK)
        st = get_body(node, "body", &p->bodies[0], err);
    p->n_bodies = 1;
    if (st != VKML_OK)
        return st;
    const graph *body = p->bodies[0];
    p->num_scan_inputs = graph_attr_int(node, "num_scan_inputs", 0);
    int scan_in = (int)p->num_scan_inputs, state = cf_explicit_inputs(node) - scan_in;
    if (p->num_scan_inputs < 1 || p->num_scan_inputs > cf_explicit_inputs(node))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Scan: num_scan_inputs is %lld, the node has %d inputs",
                         (long long)p->num_scan_inputs, cf_explicit_inputs(node));
    snprintf(why, sizeof(why), "the node has %d state and %d scan inputs", state, scan_in);
    if ((st = check_signature(node, "the body", body, state + scan_in, -1, why, err)) ||
        (st = check_present(node, 0, err)))
        return st;
    int scan_out = body->n_outputs - state;
    if (scan_out < 0 || node->n_outputs != body->n_outputs)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "Scan: the body gives %d outputs (%d states and the scan outputs), the "
                         "node has %d outputs",
                         body->n_outputs, state, node->n_outputs);
    if ((st = scan_ints(node, "scan_input_directions", scan_in, 0, 1, &p->scan_input_directions,
                        err)) ||
        (st = scan_ints(node, "scan_input_axes", scan_in, 1, 0, &p->scan_input_axes, err)) ||
        (st = scan_ints(node, "scan_output_directions", scan_out, 0, 1, &p->scan_output_directions,
                        err)))
        return st;
    return scan_ints(node, "scan_output_axes", scan_out, 1, 0, &p->scan_output_axes, err);
}

/* The shapes the plan inferred when it left the node to its dynamic tail; outside a plan
 * a control-flow node has no shapes of its own. */
vkml_status control_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    const cf_params *p = node->params;
    if (!p->bounds)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "%s runs subgraphs, whose shapes a session infers when it plans the "
                         "model (none before that)",
                         node->op_type);
    for (int o = 0; o < node->n_outputs; o++) {
        graph_value *out = graph_node_output(values, node, o);
        if (!out)
            continue;
        op_set_output(values, node, o, p->bounds[o].dtype, p->bounds[o].rank, p->bounds[o].dims);
        out->data_dependent = true;
    }
    return VKML_OK;
}
