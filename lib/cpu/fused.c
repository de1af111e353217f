/* The CPU interpreter of FusedElementwise (ops/fused.h): the program runs a block of
 * ELT_BLOCK output elements at a time, each instruction through the elementwise kernels'
 * own block math (elt_compute, class float), so a fused group computes exactly what its
 * nodes computed one by one. */
#include "ops/fused.h"
#include "cpu/cpu_kernels.h"
#include "cpu/eltwise_cpu.h"

#include <string.h>

typedef struct fused_run {
    const uint32_t *prog;
    int rank, n_instrs;
    const uint32_t *operands, *instrs;
    const float *in[FUSED_MAX_INPUTS];
    float *y;
    int64_t count;
} fused_run;

static float word_float(uint32_t w)
{
    float f;
    memcpy(&f, &w, sizeof(f));
    return f;
}

/* Operand k at output elements [start, start + n): where they are one dense run of an
 * input, a pointer into it; else copied into dst, a run along the innermost dim at a time
 * (dense, broadcast or strided), carrying into the outer dims between runs. */
static const float *load_operand(const fused_run *r, uint32_t k, int64_t start, int n, float *dst)
{
    const uint32_t *op = r->operands + (size_t)k * FUSED_OPERAND_WORDS;
    const uint32_t *strides = op + FUSED_OPERAND_STRIDES;
    const uint32_t *dims = r->prog + FUSED_HDR_DIMS;
    int64_t coords[FUSED_MAX_RANK], rest = start, off = op[FUSED_OPERAND_BASE];
    for (int d = r->rank - 1; d >= 0; d--) {
        coords[d] = rest % dims[d];
        rest /= dims[d];
        off += coords[d] * strides[d];
    }
    uint32_t src = op[FUSED_OPERAND_SRC];
    const float *from = src == FUSED_SRC_CONST ? NULL : r->in[src - 1];
    if (r->rank == 0) {
        for (int j = 0; j < n; j++)
            dst[j] = from ? from[off] : word_float(r->prog[off]);
        return dst;
    }
    int last = r->rank - 1;
    int64_t step = strides[last];
    if (from && step == 1 && (int64_t)dims[last] - coords[last] >= n)
        return from + off;
    for (int j = 0; j < n;) {
        int64_t left = (int64_t)dims[last] - coords[last];
        int run = n - j < left ? n - j : (int)left;
        if (from && step == 1)
            memcpy(dst + j, from + off, sizeof(float) * (size_t)run);
        else if (from && step == 0)
            for (int e = 0; e < run; e++)
                dst[j + e] = from[off];
        else
            for (int e = 0; e < run; e++)
                dst[j + e] = from ? from[off + e * step] : word_float(r->prog[off + e * step]);
        j += run;
        off += run * step;
        if ((coords[last] += run) < dims[last])
            continue;
        off -= (int64_t)dims[last] * step; /* the row is done: carry outward */
        coords[last] = 0;
        for (int d = last - 1; d >= 0; d--) {
            off += strides[d];
            if (++coords[d] < dims[d])
                break;
            off -= (int64_t)coords[d] * strides[d];
            coords[d] = 0;
        }
    }
    return dst;
}

static void run_blocks(void *ctx, int64_t begin, int64_t end)
{
    const fused_run *r = ctx;
    float regs[FUSED_MAX_REGS][ELT_BLOCK], scratch[3][ELT_BLOCK];
    for (int64_t b = begin; b < end; b++) {
        int64_t start = b * ELT_BLOCK;
        int n = r->count - start < ELT_BLOCK ? (int)(r->count - start) : ELT_BLOCK;
        uint32_t dst = 0;
        for (int i = 0; i < r->n_instrs; i++) {
            const uint32_t *ins = r->instrs + (size_t)i * FUSED_INSTR_WORDS;
            eltwise_op op = (eltwise_op)ins[FUSED_INSTR_OP];
            int arity = eltwise_fused_arity(op);
            if (arity == 0) /* not an instruction: y = x, as fused_eltwise.comp's apply() */
                op = ELT_IDENTITY, arity = 1;
            eltwise_params p = {.op = op,
                                .alpha = word_float(ins[FUSED_INSTR_ALPHA]),
                                .beta = word_float(ins[FUSED_INSTR_BETA]),
                                .gamma = word_float(ins[FUSED_INSTR_GAMMA])};
            elt_step step = {.op = op, .p = &p, .n_inputs = arity};
            void *xs[3] = {NULL};
            for (int s = 0; s < step.n_inputs; s++) {
                uint32_t ref = ins[FUSED_INSTR_SRC + s];
                if (ref < FUSED_REF_OPERAND) {
                    xs[s] = regs[ref];
                } else if (ref >= FUSED_REF_IMM) {
                    float v = word_float(ins[FUSED_INSTR_ALPHA + (ref - FUSED_REF_IMM)]);
                    for (int j = 0; j < n; j++)
                        scratch[s][j] = v;
                    xs[s] = scratch[s];
                } else {
                    xs[s] = (void *)load_operand(r, ref - FUSED_REF_OPERAND, start, n, scratch[s]);
                }
            }
            dst = ins[FUSED_INSTR_DST];
            /* The last instruction writes the output itself (in place of an input is
             * fine: each element is read before it is written). */
            elt_compute(ELT_CLASS_F32, &step, xs, i == r->n_instrs - 1 ? r->y + start : regs[dst],
                        n);
        }
    }
}

vkml_status cpu_fused(const op_cpu_args *args, vkml_error *err)
{
    const graph_node *node = args->node;
    const fused_params *fp = node->params;
    const uint32_t *prog = fp->words;
    if (!prog || fp->n_words < FUSED_HDR_WORDS || node->n_inputs < 2 || !args->out[0])
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "FusedElementwise: no program");
    fused_run r = {
        .prog = prog,
        .rank = (int)prog[FUSED_HDR_RANK],
        .n_instrs = (int)prog[FUSED_HDR_N_INSTRS],
        .operands = prog + FUSED_HDR_WORDS,
        .instrs = prog + FUSED_HDR_WORDS + (size_t)prog[FUSED_HDR_N_OPERANDS] * FUSED_OPERAND_WORDS,
        .y = args->out[0],
        .count = (int64_t)prog[FUSED_HDR_COUNT],
    };
    for (int k = 0; k < FUSED_MAX_INPUTS && 1 + k < node->n_inputs; k++)
        r.in[k] = args->in[1 + k];
    int64_t blocks = (r.count + ELT_BLOCK - 1) / ELT_BLOCK;
    sched_parallel_for(blocks, 4.0 * ELT_BLOCK * r.n_instrs, run_blocks, &r);
    return VKML_OK;
}
