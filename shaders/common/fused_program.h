/*
 * The program of a fused elementwise node (lib/passes/fuse_eltwise.c builds it; the CPU
 * interpreter lib/cpu/fused.c and shaders/fused_eltwise.comp run it), shared by C and GLSL:
 * one array of 32-bit words, float fields stored as their bits.
 *
 *   header     FUSED_HDR_WORDS: instruction count, operand count, rank, element count,
 *              output dims (innermost last)
 *   operands   FUSED_OPERAND_WORDS each: source (FUSED_SRC_*), base element, per dim the
 *              element stride at the output's shape (0 where broadcast)
 *   instrs     FUSED_INSTR_WORDS each: op (FUSED_OP_*), destination register, up to three
 *              sources (a register below FUSED_REF_OPERAND, else operand ref -
 *              FUSED_REF_OPERAND), alpha, beta, gamma
 *   constants  float data of the FUSED_SRC_CONST operands (their base counts from word 0)
 *
 * The last instruction writes the result; every element runs the whole program.
 */
#ifndef VKML_FUSED_PROGRAM_H
#define VKML_FUSED_PROGRAM_H

#define FUSED_MAX_RANK 8
#define FUSED_MAX_REGS 8
/* Non-constant operands (storage bindings besides the program and the output). */
#define FUSED_MAX_INPUTS 2

#define FUSED_HDR_N_INSTRS 0
#define FUSED_HDR_N_OPERANDS 1
#define FUSED_HDR_RANK 2
#define FUSED_HDR_COUNT 3
#define FUSED_HDR_DIMS 4
#define FUSED_HDR_WORDS (FUSED_HDR_DIMS + FUSED_MAX_RANK)

#define FUSED_OPERAND_SRC 0
#define FUSED_OPERAND_BASE 1
#define FUSED_OPERAND_STRIDES 2
#define FUSED_OPERAND_WORDS (FUSED_OPERAND_STRIDES + FUSED_MAX_RANK)

#define FUSED_SRC_CONST 0
#define FUSED_SRC_INPUT0 1
#define FUSED_SRC_INPUT1 2

#define FUSED_INSTR_OP 0
#define FUSED_INSTR_DST 1
#define FUSED_INSTR_SRC 2 /* three words */
#define FUSED_INSTR_ALPHA 5
#define FUSED_INSTR_BETA 6
#define FUSED_INSTR_GAMMA 7
#define FUSED_INSTR_WORDS 8

#define FUSED_REF_OPERAND 256u
/* Source s of a binary op (which takes no parameters) that is a one-element constant: the
 * float is in word FUSED_INSTR_ALPHA + s of the instruction. */
#define FUSED_REF_IMM 0xffffff00u

/* Op codes (lib/ops/fused.c maps each to its elementwise op). */
#define FUSED_OP_IDENTITY 0
#define FUSED_OP_ABS 1
#define FUSED_OP_NEG 2
#define FUSED_OP_EXP 3
#define FUSED_OP_LOG 4
#define FUSED_OP_SQRT 5
#define FUSED_OP_RECIPROCAL 6
#define FUSED_OP_FLOOR 7
#define FUSED_OP_CEIL 8
#define FUSED_OP_ERF 9
#define FUSED_OP_SOFTPLUS 10
#define FUSED_OP_SOFTSIGN 11
#define FUSED_OP_ELU 12
#define FUSED_OP_SELU 13
#define FUSED_OP_CELU 14
#define FUSED_OP_LEAKY_RELU 15
#define FUSED_OP_HARD_SIGMOID 16
#define FUSED_OP_HARD_SWISH 17
#define FUSED_OP_GELU 18
#define FUSED_OP_GELU_TANH 19
#define FUSED_OP_RELU 20
#define FUSED_OP_SIGMOID 21
#define FUSED_OP_TANH 22
#define FUSED_OP_MISH 23
#define FUSED_OP_CLIP 24 /* bounds in alpha, beta */
#define FUSED_OP_ADD 25
#define FUSED_OP_SUB 26
#define FUSED_OP_MUL 27
#define FUSED_OP_DIV 28
#define FUSED_OP_POW 29
#define FUSED_OP_MIN 30
#define FUSED_OP_MAX 31
#define FUSED_OP_PRELU 32
#define FUSED_OP_COUNT 33

#endif
