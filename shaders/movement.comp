#version 450
// The movement steps (lib/ops/movement.h), one variant per element size:
//   STEP=0 strided copy, STEP=1 mapped copy (pad modes, tile), STEP=2 band (Trilu, EyeLike).
// VEC4=1 (STEP=0): the elements are 16-byte units (uvec4), whatever the tensor's dtype.
// All offsets are 32-bit (the host refuses larger tensors); signed quantities come as
// two's complement and are summed modulo 2^32, exact once the result is in range.
#if STEP == 0
#define PUSH_STRIDED
#elif STEP == 1
#define PUSH_MAPPED
#else
#define PUSH_BAND
#endif
#include "index.glsl"
#include "buffers.glsl"
#include "rank.glsl"
#include "push.h"
#ifndef VEC4
#define VEC4 0
#endif

#if VEC4
DECLARE_IN_OF(uvec4, 0, src)
DECLARE_OUT_OF(uvec4, 1, dst)
#else
DECLARE_IN(0, src)
DECLARE_OUT(1, dst)
#endif

// The element whose bytes are (lo, hi).
T element(uint lo, uint hi)
{
#if defined(DTYPE_U64)
    return (uint64_t(hi) << 32) | uint64_t(lo);
#else
    return T(lo);
#endif
}

#if STEP == 1
// x mod n in [0, n) for any sign of x (GLSL leaves % of negatives undefined).
int pos_mod(int x, int n)
{
    return x >= 0 ? x % n : n - 1 - ((-x - 1) % n);
}

// Coordinate x of the output mapped into [0, n) of the source; false: the constant.
bool map_coord(int x, int n, out int y)
{
    y = x;
    if (x >= 0 && x < n)
        return true;
    if (p.mode == 0u || n <= 0)
        return false;
    if (p.mode == 2u) {
        y = x < 0 ? 0 : n - 1;
    } else if (p.mode == 3u) {
        y = pos_mod(x, n);
    } else {
        int period = 2 * (n - 1);
        y = period == 0 ? 0 : pos_mod(x, period);
        y = y < n ? y : period - y;
    }
    return true;
}
#endif

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
#if STEP == 0
    uint rem = i, s = p.src_offset, o = p.dst_offset;
    for (int d = min(int(p.rank), MAX_RANK) - 1; d >= 0; d--) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        s += c * p.src_strides[d];
        o += c * p.dst_strides[d];
    }
    dst[o] = src[s];
#elif STEP == 1
    uint rem = i, s = 0, stride = 1;
    bool inside = true;
    for (int d = min(int(p.rank), MAX_RANK) - 1; d >= 0; d--) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        int y;
        inside = inside && map_coord(int(c - p.begin[d]), int(p.src_dims[d]), y);
        s += uint(y) * stride;
        stride *= p.src_dims[d];
    }
    dst[i] = inside ? src[s] : element(p.value_lo, p.value_hi);
#else
    int col = int(i % p.cols), row = int((i / p.cols) % p.rows);
    int diag = col - row;
    bool keep = diag >= int(p.lo) && diag <= int(p.hi);
    if (!keep)
        dst[i] = element(p.value_lo, p.value_hi);
    else if (p.from_src != 0u)
        dst[i] = src[i];
    else
        dst[i] = element(p.band_value_lo, p.band_value_hi);
#endif
}
