#version 450
// GridSample (linear, nearest, cubic; zeros, border, reflection padding; align_corners),
// 1-D to 3-D, one invocation per output element of Y [N, C, O0, O1, O2]. The taps of each
// axis follow ops/gridsample.c as the CPU computes them (in float here).
#define PUSH_GRIDSAMPLE
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"
#include "div_rn.glsl"

DECLARE_IN(0, x)
DECLARE_IN(1, grid)
DECLARE_OUT(2, y)

#define MODE_NEAREST 1
#define MODE_CUBIC 2
#define PAD_ZEROS 0
#define PAD_BORDER 1
#define PAD_REFLECTION 2

float reflect_into(float v, float lo, float hi)
{
    float range = hi - lo;
    if (range <= 0.0)
        return lo;
    if (v < lo || v > hi) {
        float dx = v < lo ? lo - v : v - hi;
        precise float n = floor(div_rn(dx, range)), r = dx - n * range;
        bool even = mod(n, 2.0) == 0.0;
        v = (v < lo) == even ? lo + r : hi - r;
    }
    return v;
}

// Index of tap i after the padding mode, or -1 for a zero.
int tap_index(int size, float lo, float hi, int i)
{
    if (p.padding == PAD_REFLECTION && (i < 0 || i >= size))
        i = int(reflect_into(float(i), lo, hi));
    if (p.padding != PAD_ZEROS)
        return clamp(i, 0, size - 1);
    return i < 0 || i >= size ? -1 : i;
}

uint axis_taps(int size, float v, out int idx[4], out float w[4])
{
    float n = float(size);
    bool ac = p.align_corners != 0;
    float c = ac ? (v + 1.0) / 2.0 * (n - 1.0) : ((v + 1.0) * n - 1.0) / 2.0;
    float lo = ac ? 0.0 : -0.5, hi = ac ? n - 1.0 : n - 0.5;
    if (isnan(c) || isinf(c))
        c = 0.0;
    if (p.mode == MODE_NEAREST)
        c = roundEven(c);
    if (c < lo || c > hi) {
        if (p.padding == PAD_BORDER)
            c = clamp(c, 0.0, n - 1.0);
        else if (p.padding == PAD_REFLECTION)
            c = reflect_into(c, lo, hi);
    }
    c = clamp(c, -8.0, n + 8.0); // far off the input every tap is a zero: keep int() defined
    if (p.mode == MODE_NEAREST) {
        idx[0] = tap_index(size, lo, hi, int(c));
        w[0] = 1.0;
        return 1;
    }
    float base = floor(c), t = c - base;
    if (p.mode == MODE_CUBIC) {
        const float a = -0.75;
        float x0 = t + 1.0, x1 = t, x2 = 1.0 - t, x3 = 2.0 - t;
        w[0] = ((a * x0 - 5.0 * a) * x0 + 8.0 * a) * x0 - 4.0 * a;
        w[1] = ((a + 2.0) * x1 - (a + 3.0)) * x1 * x1 + 1.0;
        w[2] = ((a + 2.0) * x2 - (a + 3.0)) * x2 * x2 + 1.0;
        w[3] = ((a * x3 - 5.0 * a) * x3 + 8.0 * a) * x3 - 4.0 * a;
        for (int k = 0; k < 4; k++)
            idx[k] = tap_index(size, lo, hi, int(base) - 1 + k);
        return 4;
    }
    w[0] = 1.0 - t;
    w[1] = t;
    idx[0] = tap_index(size, lo, hi, int(base));
    idx[1] = tap_index(size, lo, hi, int(base) + 1);
    return 2;
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint osize = p.out_dims[0] * p.out_dims[1] * p.out_dims[2];
    uint o = i % osize, plane = i / osize, n = plane / p.channels;
    uint pt = n * osize + o; // the grid point
    int idx[3][4];
    float w[3][4];
    uint cnt[3];
    for (uint d = 0; d < 3; d++) {
        uint real = d + p.spatial; // real spatial dim index + 3
        if (real < 3) {            // a leading dummy axis
            cnt[d] = 1;
            idx[d][0] = 0;
            w[d][0] = 1.0;
            continue;
        }
        // the grid lists coordinates innermost spatial dim first
        float v = float(grid[pt * p.spatial + (2 - d)]);
        cnt[d] = axis_taps(int(p.in_dims[d]), v, idx[d], w[d]);
    }
    uint base = plane * p.in_dims[0] * p.in_dims[1] * p.in_dims[2];
    float acc = 0.0;
    for (uint a = 0; a < cnt[0]; a++)
        for (uint b = 0; b < cnt[1]; b++)
            for (uint c = 0; c < cnt[2]; c++) {
                if (idx[0][a] < 0 || idx[1][b] < 0 || idx[2][c] < 0)
                    continue;
                uint at = (uint(idx[0][a]) * p.in_dims[1] + uint(idx[1][b])) * p.in_dims[2] +
                          uint(idx[2][c]);
                acc += w[0][a] * w[1][b] * w[2][c] * float(x[base + at]);
            }
    y[i] = T(acc);
}
