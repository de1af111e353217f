#version 450
// A fused group of float elementwise ops (lib/plan/fuse_eltwise.c): every invocation runs
// the program (common/fused_program.h) for one output element: its coordinates once, then each
// instruction reads registers, constants from the program or the two input buffers
// (broadcast through the operand's strides) and writes a register; the last instruction's
// register is the output. The op formulas are those of eltwise_unary/binary.comp.
#define PUSH_COPY
#include "buffers.glsl"
#include "push.h"
#include "eltwise_math.glsl"
#include "div_rn.glsl"
#include "fused_program.h"
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer prog_buf { uint prog[]; };
DECLARE_IN(1, in0)
DECLARE_IN(2, in1)
DECLARE_OUT(3, y)

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

float sigmoid_f(float v)
{
    // exp of a non-positive argument only: no overflow for large |v|.
    float e = exp(-abs(v));
    return v >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

float apply(int op, float v, float z, float al, float be, float ga)
{
    switch (op) {
    // Mesa lowers a switch to a ladder of ifs: the common ops first.
    case FUSED_OP_ADD: return v + z;
    case FUSED_OP_MUL: return v * z;
    case FUSED_OP_SUB: return v - z;
    case FUSED_OP_DIV: return div_rn(v, z);
    case FUSED_OP_RELU: return v < 0.0 ? 0.0 : v;
    case FUSED_OP_SIGMOID: return sigmoid_f(v);
    case FUSED_OP_ABS: return abs(v);
    case FUSED_OP_NEG: return -v;
    case FUSED_OP_EXP: return exp(v);
    case FUSED_OP_LOG: return log(v);
    case FUSED_OP_SQRT: return sqrt(v);
    case FUSED_OP_RECIPROCAL: return 1.0 / v;
    case FUSED_OP_FLOOR: return floor(v);
    case FUSED_OP_CEIL: return ceil(v);
    case FUSED_OP_ERF: return erf_approx(v);
    case FUSED_OP_SOFTPLUS: return softplus_f(v);
    case FUSED_OP_SOFTSIGN: return v / (1.0 + abs(v));
    case FUSED_OP_ELU: return v < 0.0 ? al * expm1_f(v) : v;
    case FUSED_OP_SELU: return ga * (v > 0.0 ? v : al * expm1_f(v));
    case FUSED_OP_CELU: return v > 0.0 ? v : al * expm1_f(v / al);
    case FUSED_OP_LEAKY_RELU: return v < 0.0 ? al * v : v;
    case FUSED_OP_HARD_SIGMOID: return max(0.0, min(1.0, al * v + be));
    case FUSED_OP_HARD_SWISH: return v * max(0.0, min(1.0, v / 6.0 + 0.5));
    case FUSED_OP_GELU: return 0.5 * v * (1.0 + erf_approx(v * 0.70710678118654752));
    case FUSED_OP_GELU_TANH:
        return 0.5 * v * (1.0 + tanh_f(0.79788456080286536 * (v + 0.044715 * v * v * v)));
    case FUSED_OP_TANH: return tanh_f(v);
    case FUSED_OP_MISH: return v * tanh_f(softplus_f(v));
    case FUSED_OP_CLIP: v = v < al ? al : v; return v > be ? be : v;
    case FUSED_OP_POW: return pow_c(v, z);
    case FUSED_OP_MIN: return isnan(v) || v < z ? v : z;
    case FUSED_OP_MAX: return isnan(v) || v > z ? v : z;
    case FUSED_OP_PRELU: return v < 0.0 ? v * z : v;
    default: return v; // FUSED_OP_IDENTITY
    }
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
        float z = op >= FUSED_OP_ADD ? fetch(prog[at + FUSED_INSTR_SRC + 1], at, rank) : 0.0;
        dst = prog[at + FUSED_INSTR_DST];
        regs[dst] = apply(op, v, z, uintBitsToFloat(prog[at + FUSED_INSTR_ALPHA]),
                          uintBitsToFloat(prog[at + FUSED_INSTR_BETA]),
                          uintBitsToFloat(prog[at + FUSED_INSTR_GAMMA]));
    }
    y[i] = T(regs[dst]);
}
