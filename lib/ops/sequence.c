/* Attributes of the sequence ops (ops/sequence.h); the ops themselves are lowered to
 * tensor ops by the plan (passes/lower_seq.c). */
#include "ops/sequence.h"
#include "ops/op_decls.h"

OP_PARSE_DECL(sequence_empty_parse)
{
    seq_params *p = params;
    static const op_attr_spec specs[] = {{"dtype", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    int64_t dtype = graph_attr_int(node, "dtype", VKML_DTYPE_FLOAT);
    if (dtype <= 0 || dtype > VKML_DTYPE_INT2 || vkml_dtype_bits((vkml_dtype)dtype) == 0)
        return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                         "SequenceEmpty: element type %lld is not a tensor type vkml stores",
                         (long long)dtype);
    p->dtype = (vkml_dtype)dtype;
    return VKML_OK;
}

OP_PARSE_DECL(split_to_sequence_parse)
{
    seq_params *p = params;
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}, {"keepdims", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    p->axis = graph_attr_int(node, "axis", 0);
    p->keepdims = graph_attr_int(node, "keepdims", 1) != 0;
    return VKML_OK;
}

OP_PARSE_DECL(concat_from_sequence_parse)
{
    seq_params *p = params;
    static const op_attr_spec specs[] = {{"axis", GRAPH_ATTR_INT}, {"new_axis", GRAPH_ATTR_INT}};
    vkml_status st = op_check_attr_types(node, specs, VKML_ARRAY_SIZE(specs), err);
    if (st)
        return st;
    if (!graph_node_attr(node, "axis"))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "ConcatFromSequence: attribute 'axis' is required");
    p->axis = graph_attr_int(node, "axis", 0);
    p->new_axis = graph_attr_int(node, "new_axis", 0) != 0;
    return VKML_OK;
}

/* Reached only for a graph the plan did not lower (the model's own shape probe): a
 * sequence has no tensor shape. */
vkml_status sequence_infer(graph_value *values, const graph_node *node, vkml_error *err)
{
    (void)values;
    return vkml_fail(err, VKML_ERROR_UNSUPPORTED,
                     "%s works on sequences, which a session lowers to tensor ops when it "
                     "plans the model (no shapes before that)",
                     node->op_type);
}
