#pragma once
/*
 * FusedElementwise: a node the planner makes (lib/passes/fuse_eltwise.c) from a group of
 * float elementwise nodes; never read from a model file. Its params hold the program
 * (shaders/common/fused_program.h) that the CPU interpreter (lib/cpu/fused.c) and the Vulkan
 * kernel (shaders/fused_eltwise.comp) run per output element. Input 0 is a constant value
 * holding the same program words (for devices that upload it); inputs 1.. are the
 * non-constant operands (FUSED_SRC_INPUT0, FUSED_SRC_INPUT1); output 0 the group's result.
 */
#include "fused_program.h"
#include "ops/elementwise.h"

typedef struct fused_params {
    const uint32_t *words; /* the program */
    size_t n_words;
    int n_instrs, n_operands;
    int n_nodes;         /* model nodes the group replaces */
    const char *summary; /* their ops in order, "Add -> Relu -> Mul" */
    vkml_dtype dtype;    /* of the output (float) */
    int rank;            /* output shape, as inferred before fusing */
    int64_t dims[VKML_MAX_RANK];
} fused_params;

/* The op code an elementwise node runs as in a program (Sum as Add, Cast to float as
 * Identity), ELT_OP_COUNT when it has none (eltwise_fused_arity 0). */
eltwise_op fused_op_of(const eltwise_params *p);
