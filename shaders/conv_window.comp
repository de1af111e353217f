#version 450
// Direct convolution over 1 to 3 spatial dims (leading 1s), any group, one invocation per
// output element of Y [N, M, O0, O1, O2]; X [N, C, I...], W [M, C/group, K...], B [M]
// (binding 2, read when flags bit 0, added after the sum). Only the window's taps inside
// the input are walked.
// -D DEPTHWISE=1: the kernel for group == C (one input channel per output channel, as in
// MobileNets): no channel loop, the filter taps of one channel in a row.
// -D KSIZE=k: 2-D windows of exactly k x k (the host checks), their taps unrolled: every
// tap's loads are issued at once, each guarded by its own bounds test, instead of one
// dependent loop step per tap (the loops above have run-time bounds and do not unroll).
// -D LANES=n (not depthwise): n consecutive invocations per output, lane l summing input
// channels l, l + n, ...; the lanes' sums meet in shared memory and lane 0 adds them in a
// fixed order and stores. For small convs with many channels a group (mnist-8's 8 -> 16
// 5x5 at 14x14: 3,136 outputs, K 200): one invocation per output walked all of K serially
// on a GPU holding a few warps per SM, each step a dependent load.
#define PUSH_WINDOW3
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"
#include "window.glsl"
#extension GL_EXT_control_flow_attributes : require

DECLARE_IN(0, x)
DECLARE_IN(1, w)
DECLARE_IN(2, bias)
DECLARE_IN(3, res) // the fused residual (epilogue.glsl)
DECLARE_OUT(4, y)
#include "epilogue.glsl"

#ifndef LANES
#define LANES 1
#endif
#if LANES > 1
shared float lane_sum[WG_SIZE];
#endif

void main()
{
#if LANES > 1
    uint i = flat_index() / LANES, lane = flat_index() % LANES;
    bool real = i < p.count; // no early return: the lanes meet at a barrier
    if (!real)
        i = 0;
#else
    uint i = flat_index(), lane = 0;
    if (i >= p.count)
        return;
#endif
    uint o[3], rest = i;
    for (int d = 2; d >= 0; d--) {
        o[d] = rest % p.out_dims[d];
        rest /= p.out_dims[d];
    }
    uint m = rest % p.channels, n = rest / p.channels;
    int start[3];
    uint lo[3], hi[3];
    for (uint d = 0; d < 3; d++) {
        start[d] = int(o[d] * p.stride[d]) - int(p.pad_begin[d]);
        window_taps(start[d], p.dilation[d], p.kernel[d], 0, int(p.in_dims[d]), lo[d], hi[d]);
    }
    uint isize = p.in_dims[0] * p.in_dims[1] * p.in_dims[2];
    uint ksize = p.kernel[0] * p.kernel[1] * p.kernel[2];
    uint c0 = (m / p.group_out) * p.group_in;
    float acc = 0.0;
#if DEPTHWISE
    const uint channels = 1;
#else
    uint channels = p.group_in;
#endif
    for (uint c = lane; c < channels; c += uint(LANES)) {
        uint xplane = (n * p.in_channels + c0 + c) * isize;
        uint wplane = (m * p.group_in + c) * ksize;
#ifdef KSIZE
        [[unroll]] for (uint ky = 0; ky < KSIZE; ky++) {
            int iy = start[1] + int(ky * p.dilation[1]);
            bool row_inside = uint(iy) < p.in_dims[1]; // negative wraps to large
            [[unroll]] for (uint kx = 0; kx < KSIZE; kx++) {
                int ix = start[2] + int(kx * p.dilation[2]);
                if (row_inside && uint(ix) < p.in_dims[2])
                    acc += float(x[xplane + uint(iy) * p.in_dims[2] + uint(ix)]) *
                           float(w[wplane + ky * KSIZE + kx]);
            }
        }
#else
        for (uint k0 = lo[0]; k0 < hi[0]; k0++) {
            uint i0 = uint(start[0] + int(k0 * p.dilation[0]));
            for (uint k1 = lo[1]; k1 < hi[1]; k1++) {
                uint row = (i0 * p.in_dims[1] + uint(start[1] + int(k1 * p.dilation[1]))) *
                           p.in_dims[2];
                uint wrow = (k0 * p.kernel[1] + k1) * p.kernel[2];
                for (uint k2 = lo[2]; k2 < hi[2]; k2++)
                    acc += float(x[xplane + row + uint(start[2] + int(k2 * p.dilation[2]))]) *
                           float(w[wplane + wrow + k2]);
            }
        }
#endif
    }
#if LANES > 1
    uint lid = gl_LocalInvocationID.x;
    lane_sum[lid] = acc;
    barrier();
    if (!real || lane != 0u)
        return;
    acc = 0.0;
    [[unroll]] for (uint l = 0; l < LANES; l++)
        acc += lane_sum[lid + l];
#endif
    // the bias after the sum, as the CPU kernel and an unfused Add do (graph/fuse_epilogue.c
    // folds a per-channel Add into a Conv's bias and stays exact)
    if ((p.flags & 1u) != 0)
        acc += float(bias[m]);
    y[i] = T(epilogue_apply(acc, i));
}
