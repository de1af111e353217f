#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// THE reduction kernel: one output per line of the reduction view (reduce_view.glsl),
// OP one of lib/ops/reduce.h's reduce_op (0 Sum .. 11 ArgMin), 12, the InvStdDev of
// LayerNormalization (1 / sqrt(var + epsilon)), or 13, the population variance
// (BatchNormalization's batch statistics in training mode). Floats accumulate in float, integers in
// their own type (wrapping). ArgMax/ArgMin write int64 indices.
#define PUSH_REDUCE
#include "push.h"
#include "buffers.glsl"

#if IS_FLOAT
#define ACC float
#else
#define ACC A
#endif
#include "reduce_view.glsl"

#define R_SUM 0
#define R_MEAN 1
#define R_MAX 2
#define R_MIN 3
#define R_PROD 4
#define R_L1 5
#define R_L2 6
#define R_LOG_SUM 7
#define R_LOG_SUM_EXP 8
#define R_SUM_SQUARE 9
#define R_ARGMAX 10
#define R_ARGMIN 11
#define R_INVSTD 12
#define R_VAR 13

DECLARE_IN(0, x)
#if OP == R_ARGMAX || OP == R_ARGMIN
DECLARE_OUT_OF(int64_t, 1, y)
#elif OP == R_INVSTD
DECLARE_OUT_OF(float, 1, y) // LayerNormalization's statistics are float (stash_type 1)
#define OUT_T float
#else
DECLARE_OUT(1, y)
#define OUT_T T
#endif

#if IS_FLOAT
const ACC LOWEST = -1.0 / 0.0, HIGHEST = 1.0 / 0.0;
#elif defined(DTYPE_I64)
const ACC LOWEST = -9223372036854775807l - 1l, HIGHEST = 9223372036854775807l;
#else
const ACC LOWEST = -2147483647 - 1, HIGHEST = 2147483647;
#endif

ACC load(uint base, uint r) { return ACC(x[base + elem_offset(r)]); }

// f(x) of one element, f by OP (x, |x|, x*x, exp(x - shift)), or (x - shift)^2 with
// centered (InvStdDev's variance).
ACC term(ACC v, ACC shift, bool centered)
{
#if OP == R_L1
    v = abs(v);
#elif OP == R_L2 || OP == R_SUM_SQUARE
    v = v * v;
#elif OP == R_LOG_SUM_EXP
    v = exp(v - shift);
#endif
    if (centered)
        v = (v - shift) * (v - shift);
    return v;
}

// Where the four-way loops below stop: the last position with three more strides after it
// (written so that it cannot wrap around).
uint unrolled_end() { return p.count > 3u * LANES ? p.count - 3u * LANES : 0u; }

// Sum of term(x) over the line. Four independent partial sums keep four loads in flight
// per invocation instead of one dependent chain.
ACC line_sum(uint base, ACC shift, bool centered)
{
    ACC a0 = ACC(0), a1 = ACC(0), a2 = ACC(0), a3 = ACC(0);
    uint r = lane();
    for (uint end = unrolled_end(); r < end; r += 4u * LANES) {
        a0 += term(load(base, r), shift, centered);
        a1 += term(load(base, r + LANES), shift, centered);
        a2 += term(load(base, r + 2u * LANES), shift, centered);
        a3 += term(load(base, r + 3u * LANES), shift, centered);
    }
    for (; r < p.count; r += LANES)
        a0 += term(load(base, r), shift, centered);
    return lanes_combine((a0 + a1) + (a2 + a3), COMBINE_SUM);
}

ACC line_fold(uint base, uint how, ACC init)
{
    ACC a0 = init, a1 = init, a2 = init, a3 = init;
    uint r = lane();
    for (uint end = unrolled_end(); r < end; r += 4u * LANES) {
        a0 = combine(a0, load(base, r), how);
        a1 = combine(a1, load(base, r + LANES), how);
        a2 = combine(a2, load(base, r + 2u * LANES), how);
        a3 = combine(a3, load(base, r + 3u * LANES), how);
    }
    for (; r < p.count; r += LANES)
        a0 = combine(a0, load(base, r), how);
    return lanes_combine(combine(combine(a0, a1, how), combine(a2, a3, how), how), how);
}

void main()
{
    uint line = line_index();
#if defined(ROWS) && ROWS == 2
    // the last workgroup's spare lines walk line 0 and store nothing: every invocation
    // reaches the barriers of lanes_combine
    bool live = line < p.lines;
    line = live ? line : 0u;
#else
    const bool live = true;
    if (line >= p.lines)
        return; // uniform across a workgroup under ROWS=1
#endif
    uint base = line_offset(line);
#if OP == R_ARGMAX || OP == R_ARGMIN
    bool want_max = OP == R_ARGMAX, last = p.select_last != 0;
    ACC best = ACC(0);
    uint best_idx = 0xffffffffu;
    for (uint r = lane(); r < p.count; r += LANES) {
        ACC v = load(base, r);
        if (best_idx == 0xffffffffu || (want_max ? v > best : v < best) || (last && v == best)) {
            best = v;
            best_idx = r;
        }
    }
    best_idx = lanes_best(best, best_idx, want_max, last);
    if (lane() == 0 && live)
        y[line] = int64_t(best_idx);
#else
#if OP == R_MAX
    ACC v = line_fold(base, COMBINE_MAX, LOWEST);
#elif OP == R_MIN
    ACC v = line_fold(base, COMBINE_MIN, HIGHEST);
#elif OP == R_PROD
    ACC v = line_fold(base, COMBINE_PROD, ACC(1));
#elif OP == R_LOG_SUM_EXP
    ACC mx = line_fold(base, COMBINE_MAX, LOWEST);
    ACC v = isinf(mx) ? mx : mx + log(line_sum(base, mx, false));
#elif OP == R_INVSTD
    ACC mean = line_sum(base, ACC(0), false) / ACC(p.count);
    ACC v = inversesqrt(line_sum(base, mean, true) / ACC(p.count) + p.epsilon);
#elif OP == R_VAR
    ACC v = line_sum(base, line_sum(base, ACC(0), false) / ACC(p.count), true) / ACC(p.count);
#else
    ACC v = line_sum(base, ACC(0), false);
#endif
#if OP == R_MEAN
    v = v / ACC(p.count);
#elif OP == R_L2
    v = sqrt(v);
#elif OP == R_LOG_SUM
    v = log(v);
#endif
    if (lane() == 0 && live)
        y[line] = OUT_T(v);
#endif
}
