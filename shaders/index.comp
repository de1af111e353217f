#version 450
// The index step of Gather, GatherElements, GatherND (SCATTER=0: out[i] = data[offset]) and
// ScatterElements, ScatterND (SCATTER=1: out[offset] = updates[i], out holding a copy of
// data already); lib/ops/gather.h defines offset. Indices are read as 32-bit words (int64
// as two), so no 64-bit integer support is needed. An index out of range gives 0 (gather)
// or no write (scatter): nothing outside the buffers is touched.
#define PUSH_INDEX
#include "index.glsl"
#include "buffers.glsl"
#include "rank.glsl"
#include "push.h"

DECLARE_IN(0, src)
layout(std430, set = 0, binding = 1) readonly buffer idx_buf { uint idx[]; };
DECLARE_OUT(2, dst)

// Index at position pos, normalised into [0, bound); false when out of range.
bool read_index(uint pos, uint bound, out uint v)
{
    bool idx64 = (p.flags & 1u) != 0u;
    uint lo = idx64 ? idx[2u * pos] : idx[pos];
    uint hi = idx64 ? idx[2u * pos + 1u] : (int(lo) < 0 ? 0xffffffffu : 0u);
    v = 0u;
    if (hi == 0u && lo < bound) {
        v = lo;
        return true;
    }
    uint magnitude = 0u - lo; // of a negative index
    if (hi == 0xffffffffu && lo != 0u && magnitude <= bound) {
        v = bound - magnitude;
        return true;
    }
    return false;
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint rem = i, off = 0u, c0 = 0u, c1 = 0u;
    for (int d = min(int(p.rank), MAX_RANK) - 1; d >= 0; d--) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        off += c * p.direct[d];
        c0 = d == 0 ? c : c0;
        c1 = d == 1 ? c : c1;
    }
    uint row = (p.flags & 2u) != 0u ? i : c0 * p.outer_rows + c1;
    bool ok = true;
    for (uint t = 0u; t < min(p.k, uint(VKML_INDEX_MAX_K)); t++) {
        uint v;
        ok = read_index(row * p.k + t, p.idx_bounds[t], v) && ok;
        off += v * p.idx_strides[t];
    }
#if SCATTER
    if (ok)
        dst[off] = src[i];
#else
    dst[i] = ok ? src[off] : T(0);
#endif
}
