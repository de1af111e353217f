#include "ops/gather.h" /* data movement */
#include "ops/movement.h"
#include "ops/op.h"
#include "ops/op_decls.h"
/* The params structs op_list.h names, one header per family. */
#include "ops/attention.h"
#include "ops/control.h" /* control flow */
#include "ops/conv.h"    /* spatial */
#include "ops/convtranspose.h"
#include "ops/deformconv.h"
#include "ops/detect.h"
#include "ops/einsum.h"
#include "ops/elementwise.h"
#include "ops/fused.h"
#include "ops/fused_attention.h"
#include "ops/gridsample.h"
#include "ops/misc.h" /* remaining ops */
#include "ops/norm.h" /* and ops/reduce.h */
#include "ops/pool.h"
#include "ops/preprocess.h" /* vkml's own ops */
#include "ops/quant.h"
#include "ops/resize.h"
#include "ops/rnn.h"      /* recurrent and leftovers */
#include "ops/sequence.h" /* sequences */
#include "ops/text.h"     /* strings */

#include <stdio.h>
#include <string.h>

static const op_def op_table[] = {
#define OP(name_, domain_, since_, last_, flags_, params_, parse_, infer_)                         \
    {.id = OP_ID_##name_,                                                                          \
     .name = #name_,                                                                               \
     .domain = domain_,                                                                            \
     .since_version = since_,                                                                      \
     .last_version = last_,                                                                        \
     .flags = flags_,                                                                              \
     .params_size = sizeof(params_),                                                               \
     .parse = parse_,                                                                              \
     .infer = infer_},
#include "ops/op_list.h"
#undef OP
};
_Static_assert(VKML_ARRAY_SIZE(op_table) == OP_ID_COUNT, "one table row per op id");

static bool is_default_domain(const char *domain)
{
    return !domain || !domain[0] || strcmp(domain, "ai.onnx") == 0;
}

const op_def *op_find(const char *domain, const char *name)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(op_table); i++) {
        const op_def *op = &op_table[i];
        bool same_domain = is_default_domain(domain) ? is_default_domain(op->domain)
                                                     : strcmp(domain, op->domain) == 0;
        if (same_domain && strcmp(name, op->name) == 0)
            return op;
    }
    return NULL;
}

size_t op_table_size(void)
{
    return VKML_ARRAY_SIZE(op_table);
}

const op_def *op_table_entry(size_t index)
{
    return index < VKML_ARRAY_SIZE(op_table) ? &op_table[index] : NULL;
}

vkml_status op_bind_node(vkml_arena *arena, graph_node *node, vkml_error *err)
{
    const op_def *op = op_find(node->domain, node->op_type);
    if (!op)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "operator %s%s%s is not implemented by vkml",
                         node->domain && node->domain[0] ? node->domain : "",
                         node->domain && node->domain[0] ? "." : "", node->op_type);
    if (node->opset < op->since_version)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "opset %d uses an older version of %s than vkml implements "
                         "(versions %d to %d)",
                         node->opset, op->name, op->since_version, op->last_version);
    void *params = vkml_arena_alloc(arena, op->params_size);
    if (!params)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for %s's parameters",
                         op->name);
    if (op->parse) {
        vkml_status st = op->parse(node, params, err);
        if (st != VKML_OK)
            return st;
    }
    node->op = op;
    node->params = params;
    return VKML_OK;
}

vkml_dtype op_node_type(const graph_value *values, const graph_node *node)
{
    bool from_output = node->op && (node->op->flags & OP_TYPE_FROM_OUTPUT);
    int v = from_output ? (node->n_outputs > 0 ? node->outputs[0] : -1)
                        : (node->n_inputs > 0 ? node->inputs[0] : -1);
    return v >= 0 ? values[v].dtype : VKML_DTYPE_UNDEFINED;
}

const char *op_dtype_mask_string(uint32_t mask, char *buf, size_t size)
{
    static const vkml_dtype order[] = {
        VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_BFLOAT16, VKML_DTYPE_DOUBLE,
        VKML_DTYPE_INT8,  VKML_DTYPE_INT16,   VKML_DTYPE_INT32,    VKML_DTYPE_INT64,
        VKML_DTYPE_UINT8, VKML_DTYPE_UINT16,  VKML_DTYPE_UINT32,   VKML_DTYPE_UINT64,
        VKML_DTYPE_BOOL,
    };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < VKML_ARRAY_SIZE(order); i++) {
        if (!(mask & (1u << order[i])))
            continue;
        int n =
            snprintf(buf + used, size - used, "%s%s", used ? "," : "", vkml_dtype_name(order[i]));
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return buf;
}
