#pragma once
/*
 * The ONNX sequence ops (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase,
 * SequenceAt, SequenceLength, SplitToSequence, ConcatFromSequence). vkml has no sequence
 * values at run time: a plan rewrites these nodes into tensor ops (Identity, Split,
 * Squeeze, Unsqueeze, Concat) and list edits, see passes/lower_seq.c. They are in the op
 * table with OP_LOWERED, attributes parsed once here like every op's.
 */
#include "ops/op.h"

typedef struct seq_params {
    int64_t axis;     /* SplitToSequence (default 0), ConcatFromSequence (required) */
    bool keepdims;    /* SplitToSequence (default 1) */
    bool new_axis;    /* ConcatFromSequence (default 0) */
    vkml_dtype dtype; /* SequenceEmpty's element type (default float) */
} seq_params;
