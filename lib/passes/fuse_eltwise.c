/* Plan-time fusion of float elementwise groups: see fuse_eltwise.h. */
#include "passes/fuse_eltwise.h"
#include "ops/fused.h"
#include "ops/op_decls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most nodes one group fuses (instructions of one program). */
#define FUSE_MAX_NODES 4096
/* Most constant floats one program embeds; a larger constant operand is read as an input. */
#define FUSE_MAX_CONST_FLOATS 65536
/* Ops named in a group's summary before it elides the middle. */
#define FUSE_SUMMARY_OPS 6

/* What a node contributes to a program (code ELT_OP_COUNT: it does not fuse). */
typedef struct fuse_node {
    eltwise_op code;
    int n_operands; /* inputs it reads as operands (1 or 2) */
    float coef[3];  /* alpha, beta, gamma */
} fuse_node;

/* A group's operands: the distinct values from outside the group it reads. */
typedef struct fuse_operands {
    int values[FUSE_MAX_NODES * 2];
    uint32_t src[FUSE_MAX_NODES * 2];
    int n, n_inputs;
    size_t const_floats;
} fuse_operands;

typedef struct fuse_group {
    int root;
    const uint32_t *words;
    size_t n_words;
    int inputs[FUSED_MAX_INPUTS];
    int n_inputs;
    int n_nodes;
    const char *summary;
} fuse_group;

typedef struct fuse_state {
    const graph *g;
    const graph_value *values;
    vkml_arena *arena; /* the fused graph's */
    fuse_node *nodes;  /* per node */
    int *readers;      /* per value: references by node inputs */
    int *group_refs;   /* per value: references by the group being grown */
    int *reg_of;       /* per value: register while a program is built */
    int *mark;         /* per value: stamp of the last operand count that met it */
    int stamp;
    int *group_of;   /* per node: root of its group, -1 */
    bool *in_group;  /* per node: in the group being grown */
    int *refused_by; /* per node: root whose group could not take it */
    int *members;
    int n_members;
    fuse_operands ops;
    fuse_group *groups;
    int n_groups;
} fuse_state;

static int64_t count_of(const graph_value *v)
{
    return (int64_t)vkml_tensor_element_count(v->rank, v->dims);
}

/* Clip's bound input i: absent, or a one-element float constant (into *out). */
static bool clip_bound(const graph_value *values, const graph_node *n, int i, float *out)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return true;
    const graph_value *b = &values[n->inputs[i]];
    if (b->kind != GRAPH_VALUE_CONSTANT || b->dtype != VKML_DTYPE_FLOAT || !b->data ||
        b->data_size < sizeof(float) || count_of(b) != 1)
        return false;
    memcpy(out, b->data, sizeof(float));
    return true;
}

/* The op code, operands and parameters of node n in a program, or code COUNT. */
static fuse_node describe_node(const graph_value *values, const graph_node *n)
{
    fuse_node f = {.code = ELT_OP_COUNT};
    if (!n->op || n->op->parse != eltwise_parse || !n->params || n->n_outputs < 1 ||
        n->outputs[0] < 0 || n->n_inputs < 1)
        return f;
    const eltwise_params *p = n->params;
    eltwise_op code = fused_op_of(p);
    int want = eltwise_fused_arity(code) == 2 ? 2 : 1;
    float coef[3] = {p->alpha, p->beta, p->gamma};
    if (code == ELT_OP_COUNT || (want == 2 && n->n_inputs != 2) ||
        (want == 2 && (n->opset < 7 || p->legacy_broadcast)) ||
        (p->kind == ELT_VARIADIC && n->n_inputs != 2))
        return f;
    if (code == ELT_CLIP && n->opset >= 11 &&
        (!clip_bound(values, n, 1, &coef[0]) || !clip_bound(values, n, 2, &coef[1])))
        return f;
    for (int o = 1; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            return f;
    const graph_value *y = &values[n->outputs[0]];
    if (y->dtype != VKML_DTYPE_FLOAT || y->kind != GRAPH_VALUE_INTERMEDIATE || y->data_dependent ||
        y->rank < 0 || y->rank > FUSED_MAX_RANK || count_of(y) == 0 ||
        count_of(y) > (int64_t)UINT32_MAX)
        return f;
    for (int i = 0; i < want; i++) {
        const graph_value *x = n->inputs[i] >= 0 ? &values[n->inputs[i]] : NULL;
        if (!x || x->dtype != VKML_DTYPE_FLOAT || x->data_dependent || x->rank < 0 ||
            x->rank > y->rank)
            return f;
    }
    f.code = code;
    f.n_operands = want;
    memcpy(f.coef, coef, sizeof(coef));
    return f;
}

/* Nodes whose outputs the dynamic tail computes (plan/tail.c's rule): they stay apart. */
static void mark_tail_nodes(const graph *g, const graph_value *values, bool *tail)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        bool folded = true;
        for (int o = 0; o < n->n_outputs; o++)
            if (n->outputs[o] >= 0 && values[n->outputs[o]].kind != GRAPH_VALUE_CONSTANT)
                folded = false;
        if (folded || !n->op)
            continue;
        tail[i] = (n->op->flags & OP_DATA_DEPENDENT) != 0;
        for (int k = 0; k < n->n_inputs && !tail[i]; k++) {
            int v = n->inputs[k], producer = v >= 0 ? values[v].producer : -1;
            tail[i] = producer >= 0 && tail[producer];
        }
    }
}

/* Adds node q to the group (delta 1) or takes member k out of it (delta -1). */
static void add_member(fuse_state *s, int q, int delta)
{
    const graph_node *n = &s->g->nodes[q];
    for (int i = 0; i < n->n_inputs; i++)
        if (n->inputs[i] >= 0)
            s->group_refs[n->inputs[i]] += delta;
    s->in_group[q] = delta > 0;
    if (delta > 0) {
        s->members[s->n_members++] = q;
        return;
    }
    int k = 0;
    while (k < s->n_members && s->members[k] != q)
        k++;
    memmove(s->members + k, s->members + k + 1, sizeof(int) * (size_t)(s->n_members - k - 1));
    s->n_members--;
}

/* Whether the node making value v may still join a group (it is fusable and in none). */
static bool may_fuse_later(const fuse_state *s, int v)
{
    int q = s->values[v].producer;
    return q >= 0 && s->nodes[q].code != ELT_OP_COUNT && s->group_of[q] < 0 && !s->in_group[q];
}

/* Fills s->ops for the group being grown; false when it needs more than a program holds.
 * Optimistic (while growing): values of nodes that may still join are not counted, so a
 * diamond can close before its inputs are counted. */
static bool collect_operands(fuse_state *s, bool optimistic)
{
    fuse_operands *ops = &s->ops;
    ops->n = ops->n_inputs = 0;
    ops->const_floats = 0;
    s->stamp++;
    for (int k = 0; k < s->n_members; k++) {
        const graph_node *n = &s->g->nodes[s->members[k]];
        for (int i = 0; i < s->nodes[s->members[k]].n_operands; i++) {
            int v = n->inputs[i], producer = s->values[v].producer;
            if ((producer >= 0 && s->in_group[producer]) || s->mark[v] == s->stamp)
                continue;
            s->mark[v] = s->stamp;
            if (optimistic && may_fuse_later(s, v))
                continue;
            const graph_value *val = &s->values[v];
            size_t floats = (size_t)count_of(val);
            bool embed = val->kind == GRAPH_VALUE_CONSTANT && val->data &&
                         val->data_size >= floats * sizeof(float) &&
                         ops->const_floats + floats <= FUSE_MAX_CONST_FLOATS;
            if (!embed && ops->n_inputs == FUSED_MAX_INPUTS)
                return false;
            ops->const_floats += embed ? floats : 0;
            ops->src[ops->n] = embed ? FUSED_SRC_CONST : FUSED_SRC_INPUT0 + ops->n_inputs++;
            ops->values[ops->n++] = v;
        }
    }
    return optimistic || ops->n_inputs > 0;
}

/* Whether q may join the group of `root` through its output v, read by the group. */
static bool may_join(const fuse_state *s, int root, int v, int q)
{
    const graph_value *val = &s->values[v];
    return q >= 0 && s->nodes[q].code != ELT_OP_COUNT && s->group_of[q] < 0 && !s->in_group[q] &&
           s->refused_by[q] != root && !val->is_output && s->group_refs[v] == s->readers[v] &&
           count_of(val) == count_of(&s->values[s->g->nodes[root].outputs[0]]);
}

/* Grows the group ending at root as far as it goes. */
static void grow_group(fuse_state *s, int root)
{
    s->n_members = 0;
    add_member(s, root, 1);
    bool changed = true;
    while (changed) {
        changed = false;
        for (int k = 0; k < s->n_members; k++) {
            const graph_node *n = &s->g->nodes[s->members[k]];
            for (int i = 0; i < s->nodes[s->members[k]].n_operands; i++) {
                int v = n->inputs[i], q = s->values[v].producer;
                if (!may_join(s, root, v, q) || s->n_members == FUSE_MAX_NODES)
                    continue;
                add_member(s, q, 1);
                if (collect_operands(s, true)) {
                    changed = true;
                    continue;
                }
                add_member(s, q, -1);
                s->refused_by[q] = root;
            }
        }
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Output dims with size-1 dims dropped and dims every operand walks contiguously merged;
 * strides[k] per operand, in and out. Returns the rank. */
static int merge_dims(const graph_value *y, int n_ops, int64_t (*strides)[FUSED_MAX_RANK],
                      int64_t *dims)
{
    int rank = 0;
    for (int d = 0; d < y->rank; d++) {
        if (y->dims[d] == 1)
            continue;
        bool merge = rank > 0;
        for (int k = 0; k < n_ops && merge; k++)
            merge = strides[k][rank - 1] == strides[k][d] * y->dims[d];
        int at = merge ? rank - 1 : rank++;
        dims[at] = merge ? dims[at] * y->dims[d] : y->dims[d];
        for (int k = 0; k < n_ops; k++)
            strides[k][at] = strides[k][d];
    }
    return rank;
}

static uint32_t float_word(float f)
{
    uint32_t w;
    memcpy(&w, &f, sizeof(w));
    return w;
}

/* Writes the operand table and the constants of the program at words. */
static void write_operands(fuse_state *s, const graph_value *y, uint32_t *words, size_t consts)
{
    const fuse_operands *ops = &s->ops;
    int64_t(*strides)[FUSED_MAX_RANK] = calloc((size_t)ops->n + 1, sizeof(*strides));
    int64_t dims[FUSED_MAX_RANK] = {0};
    for (int k = 0; strides && k < ops->n; k++) {
        const graph_value *v = &s->values[ops->values[k]];
        op_broadcast_strides(v->rank, v->dims, y->rank, y->dims, strides[k]);
    }
    int rank = strides ? merge_dims(y, ops->n, strides, dims) : 0;
    words[FUSED_HDR_RANK] = (uint32_t)rank;
    words[FUSED_HDR_COUNT] = (uint32_t)count_of(y);
    for (int d = 0; d < rank; d++)
        words[FUSED_HDR_DIMS + d] = (uint32_t)dims[d];
    for (int k = 0; k < ops->n; k++) {
        uint32_t *op = words + FUSED_HDR_WORDS + (size_t)k * FUSED_OPERAND_WORDS;
        const graph_value *v = &s->values[ops->values[k]];
        op[FUSED_OPERAND_SRC] = ops->src[k];
        for (int d = 0; strides && d < rank; d++)
            op[FUSED_OPERAND_STRIDES + d] = (uint32_t)strides[k][d];
        if (ops->src[k] != FUSED_SRC_CONST)
            continue;
        op[FUSED_OPERAND_BASE] = (uint32_t)consts;
        memcpy(words + consts, v->data, sizeof(float) * (size_t)count_of(v));
        consts += (size_t)count_of(v);
    }
    free(strides);
}

/* A register for node m's output after freeing those its inputs leave; -1 when none. */
static int take_register(fuse_state *s, const graph_node *n, bool *used)
{
    for (int i = 0; i < n->n_inputs; i++) {
        int v = n->inputs[i];
        if (v >= 0 && s->reg_of[v] >= 0 && --s->group_refs[v] == 0)
            used[s->reg_of[v]] = false;
    }
    for (int r = 0; r < FUSED_MAX_REGS; r++)
        if (!used[r]) {
            used[r] = true;
            return r;
        }
    return -1;
}

/* How an instruction reads value v as its source i: a register, an immediate (a
 * one-element constant of a binary op, stored in the instruction) or an operand. */
static uint32_t source_ref(const fuse_state *s, int v, int i, int n_sources, uint32_t *ins)
{
    const graph_value *val = &s->values[v];
    if (s->reg_of[v] >= 0)
        return (uint32_t)s->reg_of[v];
    if (n_sources == 2 && val->kind == GRAPH_VALUE_CONSTANT && val->data && count_of(val) == 1) {
        memcpy(&ins[FUSED_INSTR_ALPHA + i], val->data, sizeof(float));
        return FUSED_REF_IMM + (uint32_t)i;
    }
    for (int o = 0; o < s->ops.n; o++)
        if (s->ops.values[o] == v)
            return FUSED_REF_OPERAND + (uint32_t)o;
    return FUSED_REF_OPERAND; /* unreachable: every outside source is an operand */
}

/* The instructions, in node order (members sorted); false when registers run out. */
static bool write_instrs(fuse_state *s, uint32_t *instrs)
{
    bool used[FUSED_MAX_REGS] = {false};
    bool ok = true;
    for (int k = 0; k < s->n_members && ok; k++) {
        const graph_node *n = &s->g->nodes[s->members[k]];
        const fuse_node *f = &s->nodes[s->members[k]];
        uint32_t *ins = instrs + (size_t)k * FUSED_INSTR_WORDS;
        ins[FUSED_INSTR_OP] = f->code;
        for (int i = 0; i < 3; i++)
            ins[FUSED_INSTR_SRC + i] = FUSED_REF_OPERAND;
        ins[FUSED_INSTR_ALPHA] = float_word(f->coef[0]);
        ins[FUSED_INSTR_BETA] = float_word(f->coef[1]);
        ins[FUSED_INSTR_GAMMA] = float_word(f->coef[2]);
        for (int i = 0; i < f->n_operands; i++)
            ins[FUSED_INSTR_SRC + i] = source_ref(s, n->inputs[i], i, f->n_operands, ins);
        int r = take_register(s, n, used);
        ok = r >= 0;
        ins[FUSED_INSTR_DST] = (uint32_t)(ok ? r : 0);
        s->reg_of[n->outputs[0]] = r;
    }
    for (int k = 0; k < s->n_members; k++)
        s->reg_of[s->g->nodes[s->members[k]].outputs[0]] = -1;
    return ok;
}

/* "Add -> Relu -> Mul", eliding the middle of long groups. */
static const char *summarize(fuse_state *s)
{
    char buf[512];
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < s->n_members; k++) {
        bool elide = s->n_members > FUSE_SUMMARY_OPS && k >= 3 && k < s->n_members - 2;
        if (elide && k > 3)
            continue;
        const char *name = elide ? "..." : s->g->nodes[s->members[k]].op_type;
        int w = snprintf(buf + used, sizeof(buf) - used, "%s%s", k ? " -> " : "", name);
        if (w < 0 || (size_t)w >= sizeof(buf) - used)
            break;
        used += (size_t)w;
    }
    return vkml_arena_strdup(s->arena, buf);
}

/* Turns the grown group into a program; false (group dropped) when it does not fit. */
static vkml_status make_program(fuse_state *s, int root, bool *made, vkml_error *err)
{
    *made = false;
    qsort(s->members, (size_t)s->n_members, sizeof(int), cmp_int);
    /* Too many inputs after all (nodes counted on did not join): drop members from the
     * group's start until it fits. */
    while (!collect_operands(s, false) && s->n_members >= 2)
        add_member(s, s->members[0], -1);
    if (s->n_members < 2)
        return VKML_OK;
    const graph_value *y = &s->values[s->g->nodes[root].outputs[0]];
    size_t instrs = FUSED_HDR_WORDS + (size_t)s->ops.n * FUSED_OPERAND_WORDS;
    size_t consts = instrs + (size_t)s->n_members * FUSED_INSTR_WORDS;
    size_t n_words = consts + s->ops.const_floats;
    uint32_t *words = vkml_arena_calloc(s->arena, n_words, sizeof(uint32_t));
    fuse_group *grp = &s->groups[s->n_groups];
    if (!words)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing nodes");
    if (!write_instrs(s, words + instrs))
        return VKML_OK;
    words[FUSED_HDR_N_INSTRS] = (uint32_t)s->n_members;
    words[FUSED_HDR_N_OPERANDS] = (uint32_t)s->ops.n;
    write_operands(s, y, words, consts);
    *grp = (fuse_group){.root = root,
                        .words = words,
                        .n_words = n_words,
                        .n_nodes = s->n_members,
                        .summary = summarize(s)};
    for (int k = 0; k < s->ops.n; k++)
        if (s->ops.src[k] != FUSED_SRC_CONST)
            grp->inputs[grp->n_inputs++] = s->ops.values[k];
    s->n_groups++;
    *made = true;
    return VKML_OK;
}

/* Groups in reverse node order: each unfused fusable node is the end of a group. */
static vkml_status find_groups(fuse_state *s, vkml_error *err)
{
    for (int r = s->g->n_nodes - 1; r >= 0; r--) {
        if (s->nodes[r].code == ELT_OP_COUNT || s->group_of[r] >= 0)
            continue;
        grow_group(s, r);
        bool made = false;
        vkml_status st = s->n_members >= 2 ? make_program(s, r, &made, err) : VKML_OK;
        for (int k = 0; k < s->n_members; k++) {
            if (made)
                s->group_of[s->members[k]] = r;
            s->in_group[s->members[k]] = false;
        }
        for (int k = 0; k < s->n_members; k++) {
            const graph_node *n = &s->g->nodes[s->members[k]];
            for (int i = 0; i < n->n_inputs; i++)
                if (n->inputs[i] >= 0)
                    s->group_refs[n->inputs[i]] = 0;
        }
        if (st != VKML_OK)
            return st;
    }
    return VKML_OK;
}

/* The FusedElementwise node of group grp, its program at value program. */
static vkml_status fused_node(fuse_state *s, const fuse_group *grp, int program, graph_node *n,
                              vkml_error *err)
{
    const graph_node *root = &s->g->nodes[grp->root];
    fused_params *fp = vkml_arena_calloc(s->arena, 1, sizeof(*fp));
    int *inputs = vkml_arena_calloc(s->arena, (size_t)grp->n_inputs + 1, sizeof(int));
    int *outputs = vkml_arena_calloc(s->arena, 1, sizeof(int));
    if (!fp || !inputs || !outputs || !grp->summary)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing nodes");
    const graph_value *y = &s->values[root->outputs[0]];
    *fp = (fused_params){.words = grp->words,
                         .n_words = grp->n_words,
                         .n_instrs = grp->n_nodes,
                         .n_operands = (int)grp->words[FUSED_HDR_N_OPERANDS],
                         .n_nodes = grp->n_nodes,
                         .summary = grp->summary,
                         .dtype = y->dtype,
                         .rank = y->rank};
    memcpy(fp->dims, y->dims, sizeof(fp->dims));
    inputs[0] = program;
    memcpy(inputs + 1, grp->inputs, sizeof(int) * (size_t)grp->n_inputs);
    outputs[0] = root->outputs[0];
    /* named after the group's last node (or, unnamed, its output) */
    const char *name = root->name && root->name[0] ? root->name : y->name;
    *n = (graph_node){.name = name ? name : "",
                      .op_type = "FusedElementwise",
                      .domain = "vkml.internal",
                      .opset = 1,
                      .inputs = inputs,
                      .n_inputs = 1 + grp->n_inputs,
                      .outputs = outputs,
                      .n_outputs = 1,
                      .op = op_table_entry(OP_ID_FusedElementwise),
                      .params = fp};
    return VKML_OK;
}

/* The program of group k as a constant value (for devices that upload constants). */
static void program_value(fuse_state *s, const fuse_group *grp, graph_value *v)
{
    const graph_node *root = &s->g->nodes[grp->root];
    char name[256];
    snprintf(name, sizeof(name), "%s/fused_program",
             root->name && root->name[0] ? root->name : "node");
    *v = (graph_value){.name = vkml_arena_strdup(s->arena, name),
                       .kind = GRAPH_VALUE_CONSTANT,
                       .dtype = VKML_DTYPE_UINT32,
                       .rank = 1,
                       .dims = {(int64_t)grp->n_words},
                       .data = grp->words,
                       .data_size = grp->n_words * sizeof(uint32_t),
                       .producer = -1};
}

/* The plan's graph with each group's nodes replaced by its fused node (at the root). */
static vkml_status build_graph(fuse_state *s, graph *f, vkml_error *err)
{
    const graph *g = s->g;
    vkml_status st = graph_derive(f, g, s->values, s->n_groups, err);
    int next_group = s->n_groups - 1; /* groups were found from the last node back */
    for (int i = 0; st == VKML_OK && i < g->n_nodes; i++) {
        if (s->group_of[i] >= 0 && s->group_of[i] != i)
            continue;
        if (s->group_of[i] != i) {
            graph_derive_add(f, &g->nodes[i]);
            continue;
        }
        const fuse_group *grp = &s->groups[next_group];
        int program = g->n_values + next_group--;
        program_value(s, grp, &f->values[program]);
        graph_node n;
        if ((st = fused_node(s, grp, program, &n, err)) == VKML_OK)
            graph_derive_add(f, &n);
    }
    return st;
}

static void state_free(fuse_state *s)
{
    free(s->nodes);
    free(s->readers);
    free(s->group_refs);
    free(s->reg_of);
    free(s->mark);
    free(s->group_of);
    free(s->in_group);
    free(s->refused_by);
    free(s->members);
    free(s->groups);
}

static bool state_init(fuse_state *s, const graph *g, const graph_value *values)
{
    size_t nv = (size_t)g->n_values + 1, nn = (size_t)g->n_nodes + 1;
    *s = (fuse_state){.g = g, .values = values};
    s->nodes = calloc(nn, sizeof(fuse_node));
    s->readers = calloc(nv, sizeof(int));
    s->group_refs = calloc(nv, sizeof(int));
    s->reg_of = malloc(nv * sizeof(int));
    s->mark = calloc(nv, sizeof(int));
    s->group_of = malloc(nn * sizeof(int));
    s->in_group = calloc(nn, sizeof(bool));
    s->refused_by = malloc(nn * sizeof(int));
    s->members = calloc(nn, sizeof(int));
    s->groups = calloc(nn, sizeof(fuse_group));
    if (!s->nodes || !s->readers || !s->group_refs || !s->reg_of || !s->mark || !s->group_of ||
        !s->in_group || !s->refused_by || !s->members || !s->groups)
        return false;
    for (size_t v = 0; v < nv; v++)
        s->reg_of[v] = -1;
    for (size_t i = 0; i < nn; i++)
        s->group_of[i] = s->refused_by[i] = -1;
    bool *tail = s->in_group; /* borrowed: cleared below */
    mark_tail_nodes(g, values, tail);
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0)
                s->readers[n->inputs[k]]++;
        s->nodes[i] = tail[i] ? (fuse_node){.code = ELT_OP_COUNT} : describe_node(values, n);
        tail[i] = false;
    }
    return true;
}

vkml_status fuse_eltwise(const graph *g, const graph_value *values, graph **out, vkml_error *err)
{
    *out = NULL;
    fuse_state *s = calloc(1, sizeof(*s));
    graph *f = graph_create();
    vkml_status st = VKML_OK;
    if (!s || !f || !state_init(s, g, values)) {
        st = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory fusing nodes");
        goto done;
    }
    s->arena = f->arena;
    if ((st = find_groups(s, err)) != VKML_OK || s->n_groups == 0 ||
        (st = build_graph(s, f, err)) != VKML_OK)
        goto done;
    *out = f;
    f = NULL;
done:
    graph_destroy(&f);
    if (s)
        state_free(s);
    free(s);
    return st;
}
