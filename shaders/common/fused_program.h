/*
 * The program of a fused elementwise node (lib/passes/fuse_eltwise.c builds it; the CPU
 * interpreter lib/cpu/fused.c and shaders/fused_eltwise.comp run it), shared by C and GLSL:
 * one array of 32-bit words, float fields stored as their bits.
 *
 *   header     FUSED_HDR_WORDS: instruction count, operand count, rank, element count,
 *              output dims (innermost last)
 *   operands   FUSED_OPERAND_WORDS each: source (FUSED_SRC_*), base element, per dim the
 *              element stride at the output's shape (0 where broadcast)
 *   instrs     FUSED_INSTR_WORDS each: op (an ELT_* code of eltwise_ops.h whose fuse is
 *              FUSE1, FUSE1_EPI or FUSE2), destination register, up to three
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

#endif
