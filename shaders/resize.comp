#version 450
// Resize (nearest, linear, cubic; every coordinate transform; antialiased downsampling up
// to MAX_TAPS taps per axis), one invocation per output element, over 4 dims (leading 1s).
// The taps of each axis follow ops/resize.h as the CPU computes them, operation for
// operation (same order, no contraction: `precise`), divisions correctly rounded (div_rn):
// -DCOORD_DOUBLE=1 (devices with shaderFloat64) in double like the CPU, from the double
// scales of p.scale64, so coordinates on a rounding boundary land where the CPU's do; else
// in float. Their count per axis comes from the host (p.taps).
#ifdef COORD_DOUBLE
#define DIV_RN_DOUBLE
#define C double
#else
#define C float
#endif
#define PUSH_RESIZE
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"
#include "div_rn.glsl"

DECLARE_IN(0, x)
DECLARE_OUT(1, y)

// resize_mode, resize_coord, resize_nearest of ops/resize.h
#define MODE_NEAREST 0
#define MODE_LINEAR 1
#define COORD_HALF_PIXEL_SYMMETRIC 1
#define COORD_PYTORCH_HALF_PIXEL 2
#define COORD_ALIGN_CORNERS 3
#define COORD_ASYMMETRIC 4
#define COORD_TF_CROP_AND_RESIZE 5
#define NEAREST_ROUND_PREFER_CEIL 1
#define NEAREST_FLOOR 2
#define NEAREST_CEIL 3
#define NEAREST_SIMPLE 4
#define MAX_TAPS 16 // lib/vulkan/ops_resize.c: RESIZE_GPU_TAPS

// The scale of axis d (double: the CPU's resize_geometry.scale; float: rounded to float).
C axis_scale(uint d)
{
#ifdef COORD_DOUBLE
    return packDouble2x32(uvec2(p.scale64[2 * d], p.scale64[2 * d + 1]));
#else
    return p.scale[d];
#endif
}

// scale * in: the reference's output_width (resize_geometry.out_exact).
C axis_out_exact(uint d)
{
#ifdef COORD_DOUBLE
    precise double e = axis_scale(d) * double(p.in_dims[d]);
    return e;
#else
    return p.out_exact[d];
#endif
}

// axis_coordinate of lib/ops/resize.c, step by step.
C coordinate(uint d, C o, out bool outside)
{
    C in_ = C(p.in_dims[d]), out_ = axis_out_exact(d), s = axis_scale(d);
    precise C c;
    outside = false;
    switch (p.coord) {
    case COORD_ALIGN_CORNERS:
        c = out_ == C(1) ? C(0) : div_rn(o * (in_ - C(1)), out_ - C(1));
        return c;
    case COORD_ASYMMETRIC: return div_rn(o, s);
    case COORD_PYTORCH_HALF_PIXEL:
        c = out_ == C(1) ? C(-0.5) : div_rn(o + C(0.5), s) - C(0.5);
        return c;
    case COORD_HALF_PIXEL_SYMMETRIC: {
        precise C offset = div_rn(in_, C(2)) * (C(1) - div_rn(C(p.out_dims[d]), out_));
        c = offset + div_rn(o + C(0.5), s) - C(0.5);
        return c;
    }
    case COORD_TF_CROP_AND_RESIZE: {
        precise C span = C(p.roi_end[d]) - C(p.roi_start[d]);
        c = out_ == C(1) ? div_rn(span * (in_ - C(1)), C(2))
                         : div_rn(o * span * (in_ - C(1)), out_ - C(1));
        c += C(p.roi_start[d]) * (in_ - C(1));
        outside = c < C(0) || c > in_ - C(1);
        return c;
    }
    default:
        c = div_rn(o + C(0.5), s) - C(0.5);
        return c;
    }
}

float cubic(float t)
{
    float a = p.cubic_a;
    t = abs(t);
    if (t <= 1.0)
        return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    if (t < 2.0)
        return ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a;
    return 0.0;
}

uint nearest_tap(uint d, C ratio)
{
    if (ratio == C(1))
        return 1;
    switch (p.nearest) {
    case NEAREST_ROUND_PREFER_CEIL: return ratio >= C(0.5) ? 1 : 0;
    case NEAREST_FLOOR: return 0;
    case NEAREST_CEIL: return 1;
    case NEAREST_SIMPLE: return axis_scale(d) < C(1) ? 1 : 0;
    default: return ratio > C(0.5) ? 1 : 0;
    }
}

// Taps of axis d for output index o: count (0: extrapolate), element indices, weights.
uint axis_taps(uint d, uint o, out int idx[MAX_TAPS], out float w[MAX_TAPS])
{
    if ((p.flags & (1u << d)) != 0) {
        idx[0] = int(o);
        w[0] = 1.0;
        return 1;
    }
    bool outside;
    C c = coordinate(d, C(o), outside);
    if (outside || isnan(c) || isinf(c))
        return 0;
    precise C base = c == floor(c) ? c - C(1) : floor(c), ratio_c = c - base;
    float ratio = float(ratio_c); // the weights: float here, double on the CPU
    int last = int(p.in_dims[d]) - 1;
    if (p.mode == MODE_NEAREST) {
        idx[0] = clamp(int(base) + int(nearest_tap(d, ratio_c)), 0, last);
        w[0] = 1.0;
        return 1;
    }
    uint n = min((p.taps >> (8u * d)) & 255u, uint(MAX_TAPS));
    int start = 1 - int(n / 2u);
    bool antialias = (p.flags & 32u) != 0 && axis_scale(d) < C(1);
    float s = antialias ? float(axis_scale(d)) : 1.0, sum = 0.0;
    for (uint k = 0; k < n; k++) {
        int t = start + int(k), i = int(base) + t;
        float dist = (float(t) - ratio) * s;
        w[k] = p.mode == MODE_LINEAR ? max(0.0, 1.0 - abs(dist)) : cubic(dist);
        if ((p.flags & 16u) != 0 && (i < 0 || i > last))
            w[k] = 0.0;
        idx[k] = clamp(i, 0, last);
        sum += w[k];
    }
    if (((p.flags & 16u) != 0 || antialias) && sum != 0.0)
        for (uint k = 0; k < n; k++)
            w[k] /= sum;
    return n;
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint o[4], rest = i;
    for (int d = 3; d >= 0; d--) {
        o[d] = rest % p.out_dims[d];
        rest /= p.out_dims[d];
    }
    int idx[4][MAX_TAPS];
    float w[4][MAX_TAPS];
    uint n[4];
    for (uint d = 0; d < 4; d++) {
        n[d] = axis_taps(d, o[d], idx[d], w[d]);
        if (n[d] == 0) {
            y[i] = T(p.extrapolation);
            return;
        }
    }
    float acc = 0.0;
    for (uint a = 0; a < n[0]; a++)
        for (uint b = 0; b < n[1]; b++) {
            uint ab = uint(idx[0][a]) * p.in_dims[1] + uint(idx[1][b]);
            float wab = w[0][a] * w[1][b];
            for (uint c = 0; c < n[2]; c++) {
                uint abc = (ab * p.in_dims[2] + uint(idx[2][c])) * p.in_dims[3];
                float wabc = wab * w[2][c];
                for (uint e = 0; e < n[3]; e++)
                    acc += wabc * w[3][e] * float(x[abc + uint(idx[3][e])]);
            }
        }
    y[i] = T(acc);
}
