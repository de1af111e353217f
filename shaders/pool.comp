#version 450
// Max/average/Lp pooling over 1 to 3 spatial dims (leading 1s), one invocation per output
// element of Y [N*C, O0, O1, O2]. -D POOL: 0 max, 1 average, 2 Lp; -D WITH_INDICES: MaxPool's
// int64 Indices output (binding 2; flat index into X, storage_order 1: column-major within
// the plane). Only the window's taps inside the input are walked (window_taps), as the
// CPU kernel does: a huge kernel over a small input costs what the input costs. -D KMAX=k:
// the window's taps unrolled, for windows of one tap along dim 0 and at most k x k taps
// (lib/vulkan/ops_pool.c picks it).
#extension GL_EXT_control_flow_attributes : require
#define PUSH_WINDOW3
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"
#include "window.glsl"

DECLARE_IN(0, x)
DECLARE_OUT(1, y)
#if WITH_INDICES
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
DECLARE_OUT_OF(int64_t, 2, indices)
#endif

// One tap of the window (value v at index at of the plane) into the pool's state.
void take(float v, uint at, inout float acc, inout uint best, inout bool first)
{
#if POOL == 0
    if (first || v > acc) {
        acc = v;
        best = at;
    }
    first = false;
#elif POOL == 1
    acc += v;
#else
    acc += pow(abs(v), p.lp_p);
#endif
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint o[3], rest = i;
    for (int d = 2; d >= 0; d--) {
        o[d] = rest % p.out_dims[d];
        rest /= p.out_dims[d];
    }
    uint plane = rest;
    int start[3];
    uint lo[3], hi[3];
    float padded = 1.0; // taps inside the padded input: count_include_pad's divisor
    for (uint d = 0; d < 3; d++) {
        start[d] = int(o[d] * p.stride[d]) - int(p.pad_begin[d]);
        window_taps(start[d], p.dilation[d], p.kernel[d], 0, int(p.in_dims[d]), lo[d], hi[d]);
#if POOL == 1 // only the average reads it: max and Lp pooling skip its divisions
        uint plo, phi;
        window_taps(start[d], p.dilation[d], p.kernel[d], -int(p.pad_begin[d]),
                    int(p.in_dims[d] + p.pad_end[d]), plo, phi);
        padded *= float(phi - plo);
#endif
    }
    uint isize = p.in_dims[0] * p.in_dims[1] * p.in_dims[2], base = plane * isize;
#if POOL == 0
    float acc = -1.0 / 0.0;
#else
    float acc = 0.0;
#endif
    uint best = 0;
    bool first = true;
#ifdef KMAX
    // Windows of one tap along dim 0 and at most KMAX x KMAX taps (the host's choice): every
    // tap's load goes out before the first is taken, where the loops below wait one load's
    // round trip a tap (ResNet-50 b8's 3x3 pool after the stem: 22.8 us on the H200).
    float v[KMAX * KMAX];
    uint tap_at[KMAX * KMAX];
    bool tap_in[KMAX * KMAX];
    [[unroll]] for (uint t = 0; t < KMAX * KMAX; t++) {
        uint k1 = t / KMAX, k2 = t % KMAX;
        tap_in[t] = lo[0] < hi[0] && k1 >= lo[1] && k1 < hi[1] && k2 >= lo[2] && k2 < hi[2];
        tap_at[t] = (uint(start[0]) * p.in_dims[1] + uint(start[1] + int(k1 * p.dilation[1]))) *
                        p.in_dims[2] + uint(start[2] + int(k2 * p.dilation[2]));
        v[t] = tap_in[t] ? float(x[base + tap_at[t]]) : 0.0;
    }
    [[unroll]] for (uint t = 0; t < KMAX * KMAX; t++)
        if (tap_in[t])
            take(v[t], tap_at[t], acc, best, first);
#else
    for (uint k0 = lo[0]; k0 < hi[0]; k0++) {
        uint i0 = uint(start[0] + int(k0 * p.dilation[0]));
        for (uint k1 = lo[1]; k1 < hi[1]; k1++) {
            uint i1 = uint(start[1] + int(k1 * p.dilation[1]));
            for (uint k2 = lo[2]; k2 < hi[2]; k2++) {
                uint at = (i0 * p.in_dims[1] + i1) * p.in_dims[2] +
                          uint(start[2] + int(k2 * p.dilation[2]));
                take(float(x[base + at]), at, acc, best, first);
            }
        }
    }
#endif
#if POOL == 1
    float inside = float(hi[0] - lo[0]) * float(hi[1] - lo[1]) * float(hi[2] - lo[2]);
    float div = (p.flags & 1u) != 0 ? padded : inside;
    acc = div > 0.0 ? acc / div : uintBitsToFloat(0x7fc00000u); // NaN, as the CPU kernel
#elif POOL == 2
    acc = pow(acc, 1.0 / p.lp_p);
#endif
#if IS_FLOAT
    y[i] = T(acc);
#else
    y[i] = T(A(first ? 0.0 : acc)); // MaxPool int8/uint8: exact in float; no taps gives 0, as the CPU
#endif
#if WITH_INDICES
    if ((p.flags & 2u) != 0) { // column-major within the plane
        uint b2 = best % p.in_dims[2], b1 = (best / p.in_dims[2]) % p.in_dims[1];
        uint b0 = best / (p.in_dims[2] * p.in_dims[1]);
        best = (b2 * p.in_dims[1] + b1) * p.in_dims[0] + b0;
    }
    indices[i] = int64_t(plane) * int64_t(isize) + int64_t(best);
#endif
}
