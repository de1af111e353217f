#version 450
#ifdef CLUSTER
#extension GL_KHR_shader_subgroup_clustered : require
#endif
// The per-line normalisations: statistics over a line of the reduction view
// (reduce_view.glsl), then every element of the line rewritten in place of where it was
// read. NORM: 0 Softmax, 1 LogSoftmax, 2 Hardmax, 3 mean/variance (Layer, Instance,
// Group, MeanVariance, RMS with mean 0: y = (x - mean) * inv * scale + bias), 7 Lp
// (lib/ops/norm.h).
// Computed in float. Bindings: x, scale, bias (x again when absent), y. ROWS and CLUSTER
// as in common/reduce_view.glsl: _rows a workgroup a line, _short 32 lanes a line (8 lines
// a workgroup), _lanes the same combining within subgroups.
#define PUSH_NORM
#include "push.h"
#include "buffers.glsl"

#define ACC float
#include "reduce_view.glsl"

DECLARE_IN(0, x)
DECLARE_IN(1, scale)
DECLARE_IN(2, bias)
DECLARE_OUT(3, y)

// Under ROWS=2 the last workgroup's spare lines walk line 0 and store nothing: every
// invocation reaches the barriers of lanes_combine.
bool live = true;

float load(uint base, uint r) { return float(x[base + elem_offset(r)]); }
void store(uint base, uint r, float v)
{
    if (live)
        y[base + elem_offset(r)] = T(v);
}

// Sum over the line of (x - shift)^2 (square), |x| (abs, Lp 1), or exp(x - shift).
#define SUM_PLAIN 0
#define SUM_SQUARE 1
#define SUM_ABS 2
#define SUM_EXP 3
float line_sum(uint base, float shift, uint how)
{
    float acc = 0.0;
    for (uint r = lane(); r < p.count; r += LANES) {
        float v = load(base, r) - shift;
        acc += how == SUM_SQUARE ? v * v : how == SUM_ABS ? abs(v) : how == SUM_EXP ? exp(v) : v;
    }
    return lanes_combine(acc, COMBINE_SUM);
}

float line_max(uint base)
{
    float acc = -1.0 / 0.0;
    for (uint r = lane(); r < p.count; r += LANES)
        acc = max(acc, load(base, r));
    return lanes_combine(acc, COMBINE_MAX);
}

uint param_index(uint line, uint r)
{
    return ((line / p.line_div) % p.line_mod) * p.line_mul + (r / p.r_div) % p.r_mod;
}

void main()
{
    uint line = line_index();
#if defined(ROWS) && ROWS == 2
    live = line < p.lines;
    line = live ? line : 0u;
#else
    if (line >= p.lines)
        return; // uniform across a workgroup under ROWS=1
#endif
    uint base = line_offset(line);
#if NORM == 0 || NORM == 1
    float mx = line_max(base);
    float sum = line_sum(base, mx, SUM_EXP);
    float log_sum = log(sum);
    for (uint r = lane(); r < p.count; r += LANES) {
        float d = load(base, r) - mx;
        store(base, r, NORM == 1 ? d - log_sum : exp(d) / sum);
    }
#elif NORM == 2
    float best = 0.0;
    uint best_idx = 0xffffffffu;
    for (uint r = lane(); r < p.count; r += LANES) {
        float v = load(base, r);
        if (best_idx == 0xffffffffu || v > best) {
            best = v;
            best_idx = r;
        }
    }
    best_idx = lanes_best(best, best_idx, true, false);
    for (uint r = lane(); r < p.count; r += LANES)
        store(base, r, r == best_idx ? 1.0 : 0.0);
#elif NORM == 3
    float n = float(p.count);
    float mean = p.rms != 0 ? 0.0 : line_sum(base, 0.0, SUM_PLAIN) / n;
    float var = line_sum(base, mean, SUM_SQUARE) / n;
    float inv = p.mvn != 0 ? 1.0 / (sqrt(var) + 1e-9) : inversesqrt(var + p.epsilon);
    for (uint r = lane(); r < p.count; r += LANES) {
        float v = (load(base, r) - mean) * inv;
        if (p.has_scale != 0) {
            uint pi = param_index(line, r);
            v = v * float(scale[pi]) + (p.has_bias != 0 ? float(bias[pi]) : 0.0);
        }
        store(base, r, v);
    }
#else
    float norm = p.lp == 1 ? line_sum(base, 0.0, SUM_ABS) : sqrt(line_sum(base, 0.0, SUM_SQUARE));
    for (uint r = lane(); r < p.count; r += LANES)
        store(base, r, norm > 0.0 ? load(base, r) / norm : 0.0);
#endif
}
