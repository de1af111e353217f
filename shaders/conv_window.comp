#version 450
// Direct convolution over 1 to 3 spatial dims (leading 1s), any group, one invocation per
// output element of Y [N, M, O0, O1, O2]; X [N, C, I...], W [M, C/group, K...], B [M]
// (binding 2, read when flags bit 0, added after the sum). Only the window's taps inside
// the input are walked.
// -D DEPTHWISE=1: the kernel for group == C (one input channel per output channel, as in
// MobileNets): no channel loop, the filter taps of one channel in a row.
// -D KSIZE=k: 2-D windows of exactly k x k (the host checks), their taps unrolled: every
// tap's loads are issued at once, each guarded by its own bounds test, instead of one
// dependent loop step per tap (the loops above have run-time bounds and do not unroll);
// all of a channel's loads come before its products (mnist-8's two convs 0.6 us faster
// each on the H200 than with each product after its loads).
// -D LANES=n (not depthwise): n consecutive invocations per output, lane l summing input
// channels l, l + n, ...; the lanes' sums meet in shared memory, are added in a fixed
// order, and lane 0 stores. For small convs with many channels a group (mnist-8's 8 -> 16
// 5x5 at 14x14: 3,136 outputs, K 200): one invocation per output walked all of K serially
// on a GPU holding a few warps per SM, each step a dependent load.
// -D POOL=1 (2-D, not depthwise; not with LANES): the Conv's fused MaxPool
// (passes/fuse_epilogue.c): the conv outputs of a pooled element's window computed side by
// side, each over lanes of its channels (a number the host gives), their max stored
// (window3_pool_push; see the first main below).
#ifndef POOL
#define POOL 0
#endif
#if POOL
#define PUSH_WINDOW3_POOL
#define WG_SIZE 256 // a pooled output's group: up to 16 taps x 8 lanes (ops_conv.c)
#else
#define PUSH_WINDOW3
#endif
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

// The sum over input channels lane, lane + lanes, ... (every channel when lanes is 1) for
// output channel m of image n at conv output position o (3-D, leading 1s).
float conv_sum(uint n, uint m, uint o[3], uint lane, uint lanes)
{
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
    for (uint c = lane; c < channels; c += lanes) {
        uint xplane = (n * p.in_channels + c0 + c) * isize;
        uint wplane = (m * p.group_in + c) * ksize;
#ifdef KSIZE
        // every tap's loads first, then the sum in tap order
        float xv[KSIZE * KSIZE], wv[KSIZE * KSIZE];
        bool in_tap[KSIZE * KSIZE];
        [[unroll]] for (uint ky = 0; ky < KSIZE; ky++) {
            int iy = start[1] + int(ky * p.dilation[1]);
            bool row_inside = uint(iy) < p.in_dims[1]; // negative wraps to large
            [[unroll]] for (uint kx = 0; kx < KSIZE; kx++) {
                int ix = start[2] + int(kx * p.dilation[2]);
                uint t = ky * KSIZE + kx;
                in_tap[t] = row_inside && uint(ix) < p.in_dims[2];
                xv[t] = in_tap[t] ? float(x[xplane + uint(iy) * p.in_dims[2] + uint(ix)]) : 0.0;
                wv[t] = float(w[wplane + t]);
            }
        }
        [[unroll]] for (uint t = 0; t < KSIZE * KSIZE; t++)
            if (in_tap[t])
                acc += xv[t] * wv[t];
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
    return acc;
}

// The lanes' sums added, in a fixed order, for every lane of the output (LANES > 1: every
// invocation of the workgroup must call it once, as it meets the others at a barrier).
float lanes_total(float acc, uint lane)
{
#if LANES > 1
    uint lid = gl_LocalInvocationID.x;
    lane_sum[lid] = acc;
    barrier();
    acc = 0.0;
    [[unroll]] for (uint l = 0; l < LANES; l++)
        acc += lane_sum[lid - lane + l];
#endif
    return acc;
}

// Output element i as its position o (3-D, leading 1s), channel m and image n.
void output_at(uint i, out uint o[3], out uint m, out uint n)
{
    uint rest = i;
#if POOL // 2-D: the leading dim is 1
    o[0] = 0u;
    for (int d = 2; d >= 1; d--) {
#else
    for (int d = 2; d >= 0; d--) {
#endif
        o[d] = rest % p.out_dims[d];
        rest /= p.out_dims[d];
    }
    m = rest % p.channels;
    n = rest / p.channels;
}

// What a conv output adds to its channel sum: the bias of channel m and the residual at
// `at`, each read where the push block says there is one. Read before the sum, so that
// their loads go out with the taps' instead of a round trip after the sum (and, in the
// POOL form, after its barrier).
struct After {
    float bias, res;
};

After after_sum(uint m, uint at)
{
    After e;
    e.bias = (p.flags & 1u) != 0u ? float(bias[m]) : 0.0;
    e.res = EPI_HAS_RESIDUAL ? float(res[at]) : 0.0;
    return e;
}

// A conv output from its channel sum: the bias after the sum, as the CPU kernel and an
// unfused Add do (passes/fuse_epilogue.c folds a per-channel Add into a Conv's bias and
// stays exact), then the fused epilogue.
float conv_output(float acc, After e)
{
    if ((p.flags & 1u) != 0)
        acc += e.bias;
    return epilogue_with(acc, e.res);
}

#if POOL
shared float tap_sum[WG_SIZE];
shared uint tap_inside[WG_SIZE];

// One pooled output per group of slots x lanes invocations (slots: the pool window's taps
// rounded up to a power of two; lanes: 1 << flags bits 8..11; the host keeps the group
// within a workgroup): invocation (tap t, lane l) sums lane l's channels of the conv output
// under tap t, the lanes' sums meet in shared memory, each tap's lane 0 adds them and
// applies bias and activation, and the group's first invocation takes the max of its taps'
// conv outputs inside the conv's output (the first, then any greater, as MaxPool does).
void main()
{
    uvec2 conv_out = uvec2(p.conv_out >> 16, p.conv_out & 0xffffu);
    uvec2 pool_k = uvec2(p.pool_kernel >> 16, p.pool_kernel & 0xffffu);
    uvec2 pool_s = uvec2(p.pool_stride >> 16, p.pool_stride & 0xffffu);
    uvec2 pool_p = uvec2(p.pool_pad >> 16, p.pool_pad & 0xffffu);
    // slots and lanes are powers of two: the group's index by shifts, not divisions
    uint taps = pool_k.x * pool_k.y, lane_bits = (p.flags >> 8) & 15u, lanes = 1u << lane_bits;
    uint group_bits = lane_bits + (taps <= 1u ? 0u : uint(findMSB(taps - 1u) + 1));
    uint g = flat_index(), lid = gl_LocalInvocationID.x;
    uint i = g >> group_bits, r = g & ((1u << group_bits) - 1u), t = r >> lane_bits,
         lane = r & (lanes - 1u);
    bool real = i < p.count; // no early return: the group meets at barriers
    if (!real)
        i = 0;
    uint o[3], m, n;
    output_at(i, o, m, n);
    int cy = int(o[1] * pool_s.x + t / pool_k.y) - int(pool_p.x);
    int cx = int(o[2] * pool_s.y + t % pool_k.y) - int(pool_p.y);
    bool inside = real && t < taps && uint(cy) < conv_out.x && uint(cx) < conv_out.y;
    // every invocation sums (a tap past the window or the conv's output at (0, 0)): the
    // sum inlined without a branch around it
    uint co[3] = uint[3](0u, inside ? uint(cy) : 0u, inside ? uint(cx) : 0u);
    After e = after_sum(m, i);
    tap_sum[lid] = conv_sum(n, m, co, lane, lanes);
    barrier();
    if (lane == 0u) { // each tap's lanes, in a fixed order, then its bias and activation
        float acc = 0.0;
        for (uint l = 0; l < lanes; l++)
            acc += tap_sum[lid + l];
        tap_sum[lid] = inside ? conv_output(acc, e) : 0.0; // read by lane 0 alone
        tap_inside[lid] = inside ? 1u : 0u;
    }
    barrier();
    if (!real || r != 0u)
        return;
    float best = 0.0;
    bool first = true;
    for (uint s = 0; s < taps; s++) {
        uint at = lid + s * lanes;
        if (tap_inside[at] != 0u) {
            float v = tap_sum[at];
            if (first || v > best)
                best = v;
            first = false;
        }
    }
    y[i] = T(best);
}
#else
void main()
{
#if LANES > 1
    uint i = flat_index() / LANES, lane = flat_index() % LANES;
    bool real = i < p.count; // no early return: the lanes meet at barriers
    if (!real)
        i = 0;
#else
    uint i = flat_index(), lane = 0;
    bool real = true;
    if (i >= p.count)
        return;
#endif
    uint o[3], m, n;
    output_at(i, o, m, n);
    After e = after_sum(m, i);
    float acc = lanes_total(conv_sum(n, m, o, lane, uint(LANES)), lane);
    if (real && lane == 0u)
        y[i] = T(conv_output(acc, e));
}
#endif
