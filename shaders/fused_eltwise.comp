#version 450
// A fused group of float elementwise ops (lib/passes/fuse_eltwise.c): every invocation runs
// the program (common/fused_program.h) for one output element: its coordinates once, then each
// instruction reads registers, constants from the program or the two input buffers
// (broadcast through the operand's strides) and writes a register; the last instruction's
// register is the output. The op formulas are common/eltwise_math.glsl's.
#include "fused_bindings.glsl"

uint coords[FUSED_MAX_RANK];
float regs[FUSED_MAX_REGS];

float operand(uint k, uint rank)
{
    uint at = FUSED_HDR_WORDS + k * FUSED_OPERAND_WORDS;
    uint off = prog[at + FUSED_OPERAND_BASE];
    for (uint d = 0; d < rank; d++)
        off += coords[d] * prog[at + FUSED_OPERAND_STRIDES + d];
    uint src = prog[at + FUSED_OPERAND_SRC];
    return src == FUSED_SRC_CONST ? uintBitsToFloat(prog[off])
         : src == FUSED_SRC_INPUT0 ? float(in0[off]) : float(in1[off]);
}

float fetch(uint ref, uint at, uint rank)
{
    return ref < FUSED_REF_OPERAND ? regs[ref]
         : ref >= FUSED_REF_IMM ? uintBitsToFloat(prog[at + FUSED_INSTR_ALPHA + (ref - FUSED_REF_IMM)])
         : operand(ref - FUSED_REF_OPERAND, rank);
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint rank = prog[FUSED_HDR_RANK];
    uint rest = i;
    for (int d = int(rank) - 1; d >= 0; d--) {
        uint n = prog[FUSED_HDR_DIMS + d];
        coords[d] = rest % n;
        rest /= n;
    }
    uint n_instrs = prog[FUSED_HDR_N_INSTRS];
    uint at = FUSED_HDR_WORDS + prog[FUSED_HDR_N_OPERANDS] * FUSED_OPERAND_WORDS;
    uint dst = 0;
    for (uint k = 0; k < n_instrs; k++, at += FUSED_INSTR_WORDS) {
        int op = int(prog[at + FUSED_INSTR_OP]);
        float v = fetch(prog[at + FUSED_INSTR_SRC], at, rank);
        float z = fused_arity(op) == 2 ? fetch(prog[at + FUSED_INSTR_SRC + 1], at, rank) : 0.0;
        dst = prog[at + FUSED_INSTR_DST];
        regs[dst] = apply(op, v, z, uintBitsToFloat(prog[at + FUSED_INSTR_ALPHA]),
                          uintBitsToFloat(prog[at + FUSED_INSTR_BETA]),
                          uintBitsToFloat(prog[at + FUSED_INSTR_GAMMA]));
    }
    y[i] = T(regs[dst]);
}
