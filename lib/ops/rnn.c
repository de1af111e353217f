/* RNN, GRU and LSTM: attributes and shapes (ops/rnn.h). */
#include "ops/rnn.h"
#include "ops/op.h"
#include "ops/op_decls.h"

#include <ctype.h>
#include <string.h>

/* An activation name of the RNN ops: its kind, elementwise op, and whether it reads
 * alpha/beta (with their defaults, those of the op of that name). */
typedef struct rnn_act_name {
    const char *name;
    rnn_act_kind kind;
    eltwise_op op;
    bool has_alpha, has_beta;
    float alpha, beta;
} rnn_act_name;

static const rnn_act_name act_names[] = {
    {"relu", RNN_ACT_ELTWISE, ELT_RELU, false, false, 0, 0},
    {"tanh", RNN_ACT_ELTWISE, ELT_TANH, false, false, 0, 0},
    {"sigmoid", RNN_ACT_ELTWISE, ELT_SIGMOID, false, false, 0, 0},
    {"softsign", RNN_ACT_ELTWISE, ELT_SOFTSIGN, false, false, 0, 0},
    {"softplus", RNN_ACT_ELTWISE, ELT_SOFTPLUS, false, false, 0, 0},
    {"leakyrelu", RNN_ACT_ELTWISE, ELT_LEAKY_RELU, true, false, 0.01f, 0},
    {"thresholdedrelu", RNN_ACT_ELTWISE, ELT_THRESHOLDED_RELU, true, false, 1.0f, 0},
    {"elu", RNN_ACT_ELTWISE, ELT_ELU, true, false, 1.0f, 0},
    {"hardsigmoid", RNN_ACT_ELTWISE, ELT_HARD_SIGMOID, true, true, 0.2f, 0.5f},
    {"affine", RNN_ACT_AFFINE, ELT_RELU, true, true, 1.0f, 0.0f},
    {"scaledtanh", RNN_ACT_SCALED_TANH, ELT_TANH, true, true, 1.0f, 1.0f},
};

static const rnn_act_name *find_act(const char *name)
{
    char lower[32];
    size_t len = strlen(name);
    if (len >= sizeof lower)
        return NULL;
    for (size_t i = 0; i <= len; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    for (size_t i = 0; i < VKML_ARRAY_SIZE(act_names); i++)
        if (strcmp(lower, act_names[i].name) == 0)
            return &act_names[i];
    return NULL;
}

/* Per-direction defaults: RNN Tanh; GRU f=Sigmoid, g=Tanh; LSTM f=Sigmoid, g=h=Tanh. */
static const char *default_act(int gates, int k)
{
    if (gates == 1)
        return "Tanh";
    return k == 0 ? "Sigmoid" : "Tanh";
}

/* Fills p->act from `activations` (one list for every direction, or the per-direction
 * count once, shared) and activation_alpha/beta, consumed in order by the activations
 * that take them. */
static vkml_status parse_activations(const graph_node *node, rnn_params *p, vkml_error *err)
{
    const graph_attr *names = graph_node_attr(node, "activations");
    size_t n_alpha = 0, n_beta = 0, used_alpha = 0, used_beta = 0;
    const float *alphas = graph_attr_floats(node, "activation_alpha", &n_alpha);
    const float *betas = graph_attr_floats(node, "activation_beta", &n_beta);
    size_t count = names ? names->count : 0;
    size_t per_dir = (size_t)p->acts_per_dir;
    if (names && count != per_dir && count != per_dir * (size_t)p->directions)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: activations lists %zu names, expected %zu per direction (%d "
                         "direction(s))",
                         node->op_type, count, per_dir, p->directions);
    for (int d = 0; d < p->directions; d++) {
        for (int k = 0; k < p->acts_per_dir; k++) {
            size_t at = (size_t)d * per_dir + (size_t)k;
            const char *name = names ? names->strings[at % count] : default_act(p->gates, k);
            const rnn_act_name *a = find_act(name);
            if (!a)
                return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                                 "%s: activation '%s' is not one of the RNN activations",
                                 node->op_type, name);
            rnn_activation *act = &p->act[d][k];
            act->kind = a->kind;
            act->alpha = a->has_alpha && used_alpha < n_alpha ? alphas[used_alpha++] : a->alpha;
            act->beta = a->has_beta && used_beta < n_beta ? betas[used_beta++] : a->beta;
            act->elt.op = a->op;
            act->elt.kind = ELT_UNARY;
            act->elt.alpha = act->alpha;
            act->elt.beta = act->beta;
        }
    }
    return VKML_OK;
}

OP_PARSE_DECL(rnn_parse)
{
    rnn_params *p = params;
    static const op_attr_spec specs[] = {
        {"activations", GRAPH_ATTR_STRINGS},
        {"activation_alpha", GRAPH_ATTR_FLOATS},
        {"activation_beta", GRAPH_ATTR_FLOATS},
        {"clip", GRAPH_ATTR_FLOAT},
        {"direction", GRAPH_ATTR_STRING},
        {"hidden_size", GRAPH_ATTR_INT},
        {"layout", GRAPH_ATTR_INT},
        {"linear_before_reset", GRAPH_ATTR_INT},
        {"input_forget", GRAPH_ATTR_INT},
    };
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    bool lstm = strcmp(node->op_type, "LSTM") == 0, gru = strcmp(node->op_type, "GRU") == 0;
    p->gates = lstm ? 4 : gru ? 3 : 1;
    p->acts_per_dir = lstm ? 3 : gru ? 2 : 1;
    const char *dir = graph_attr_string(node, "direction", "forward");
    p->directions = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    p->reverse = strcmp(dir, "reverse") == 0;
    if (p->directions == 1 && !p->reverse && strcmp(dir, "forward") != 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: direction '%s' is not forward, reverse or bidirectional",
                         node->op_type, dir);
    p->hidden = graph_attr_int(node, "hidden_size", 0);
    if (p->hidden < 0 || (graph_node_attr(node, "hidden_size") && p->hidden == 0))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: hidden_size %lld must be positive",
                         node->op_type, (long long)p->hidden);
    p->has_clip = graph_node_attr(node, "clip") != NULL;
    p->clip = graph_attr_float(node, "clip", 0.0f);
    if (p->has_clip && !(p->clip > 0.0f))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: clip %g must be positive",
                         node->op_type, (double)p->clip);
    p->linear_before_reset = graph_attr_int(node, "linear_before_reset", 0) != 0;
    p->input_forget = graph_attr_int(node, "input_forget", 0) != 0;
    int64_t layout = graph_attr_int(node, "layout", 0);
    if (layout != 0 && layout != 1)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: layout %lld must be 0 or 1",
                         node->op_type, (long long)layout);
    p->layout = (int)layout;
    return parse_activations(node, p, err);
}

int64_t rnn_hidden_size(const graph_value *values, const graph_node *node)
{
    const rnn_params *p = node->params;
    if (p->hidden > 0)
        return p->hidden;
    return values[node->inputs[RNN_IN_W]].dims[1] / p->gates;
}

/* Fails naming the input unless the optional input i is absent or has `rank` dims equal
 * to `dims` (and, for the float inputs, X's dtype). */
static vkml_status check_input(const graph_value *values, const graph_node *node, int i,
                               const char *what, int rank, const int64_t *dims, vkml_dtype dtype,
                               vkml_error *err)
{
    if (i >= node->n_inputs || node->inputs[i] < 0)
        return VKML_OK;
    vkml_status st = op_require_input(values, node, i, err);
    if (st)
        return st;
    const graph_value *v = &values[node->inputs[i]];
    bool ok = v->rank == rank && v->dtype == dtype;
    for (int d = 0; ok && d < rank; d++)
        ok = v->dims[d] == dims[d];
    if (ok)
        return VKML_OK;
    char want[160], have[160];
    return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                     "%s: input %d '%s' (%s) must be %s %s, not %s %s", node->op_type, i, v->name,
                     what, vkml_dtype_name(dtype),
                     graph_shape_string(rank, dims, want, sizeof want), vkml_dtype_name(v->dtype),
                     graph_shape_string(v->rank, v->dims, have, sizeof have));
}

vkml_status rnn_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    static const vkml_dtype floats[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};
    const rnn_params *p = node->params;
    bool lstm = p->gates == 4;
    vkml_status st;
    if ((st = op_require_counts(node, 3, lstm ? 8 : 6, 0, err)) ||
        (st = op_require_input(values, node, RNN_IN_X, err)) ||
        (st = op_require_input(values, node, RNN_IN_W, err)) ||
        (st = op_require_input(values, node, RNN_IN_R, err)) ||
        (st = op_require_dtype(values, node, RNN_IN_X, floats, VKML_ARRAY_SIZE(floats), err)))
        return st;
    const graph_value *x = &values[node->inputs[RNN_IN_X]], *w = &values[node->inputs[RNN_IN_W]];
    if (x->rank != 3 || w->rank != 3 || w->dims[1] % p->gates != 0 || w->dims[1] == 0)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: X '%s' and W '%s' must be 3-D, W [directions, %d*hidden, input]",
                         node->op_type, x->name, w->name, p->gates);
    int64_t dirs = p->directions, hidden = rnn_hidden_size(values, node);
    int64_t seq = x->dims[p->layout], batch = x->dims[1 - p->layout], gh = p->gates * hidden;
    int64_t w_dims[3] = {dirs, gh, x->dims[2]}, r_dims[3] = {dirs, gh, hidden};
    int64_t b_dims[2] = {dirs, 2 * gh}, p_dims[2] = {dirs, 3 * hidden}, lens_dims[1] = {batch};
    int64_t h_dims[3] = {dirs, batch, hidden};
    if (p->layout)
        h_dims[0] = batch, h_dims[1] = dirs;
    if ((st = check_input(values, node, RNN_IN_W, "W", 3, w_dims, x->dtype, err)) ||
        (st = check_input(values, node, RNN_IN_R, "R", 3, r_dims, x->dtype, err)) ||
        (st = check_input(values, node, RNN_IN_B, "B", 2, b_dims, x->dtype, err)) ||
        (st = check_input(values, node, RNN_IN_SEQ_LENS, "sequence_lens", 1, lens_dims,
                          VKML_DTYPE_INT32, err)) ||
        (st = check_input(values, node, RNN_IN_H0, "initial_h", 3, h_dims, x->dtype, err)) ||
        (lstm &&
         (st = check_input(values, node, RNN_IN_C0, "initial_c", 3, h_dims, x->dtype, err))) ||
        (lstm && (st = check_input(values, node, RNN_IN_P, "P", 2, p_dims, x->dtype, err))))
        return st;
    int64_t y_dims[4] = {seq, dirs, batch, hidden};
    if (p->layout)
        y_dims[0] = batch, y_dims[1] = seq, y_dims[2] = dirs;
    int n_out = lstm ? 3 : 2;
    if (node->n_outputs > n_out)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s has at most %d outputs, not %d",
                         node->op_type, n_out, node->n_outputs);
    for (int o = 0; o < node->n_outputs; o++)
        if (node->outputs[o] >= 0)
            op_set_output(values, node, o, x->dtype, o == 0 ? 4 : 3, o == 0 ? y_dims : h_dims);
    return VKML_OK;
}
