// The operands and the output of gemm_tiled.comp's products (the register-blocked kernel
// and its cooperative-matrix form gemm_coop.comp): bindings, push constants, the A and B
// element loaders (zero outside the product: ragged tiles need no other care), the
// product's location from the workgroup's z (batch or conv group) and the store of one
// result with C or bias and the fused epilogue. See gemm_tiled.comp for the two forms
// (CONV=0: MatMul/Gemm; CONV=1: implicit-GEMM conv); CONV=2 is gemm_coop.comp's conv with
// K over (tap, channel), which loads its tiles itself and takes the rest from here.
//
// Split-K (SPLITK=1, the first pass): workgroup z runs over S slices x the Z batches or
// groups (z = slice * Z + batch); slice s sums K from s * k_slice to the next slice's start
// and writes its raw sums, float32, to binding 4 (a scratch buffer [S][Z][M][N]).
// SPLITK=2 (gemm_splitk.comp, the second pass): binding 0 is that scratch; its sums over
// the slices go through gemm_store as one product's would. Both see `splits` (S) and
// `k_slice` (a multiple of every BK) at the end of the push block (push.h's matmul_push or
// conv_gemm_push, PUSH_GEMM_SPLIT).
#ifndef VKML_GEMM_OPERANDS_GLSL
#define VKML_GEMM_OPERANDS_GLSL
#ifndef SPLITK
#define SPLITK 0
#endif
#if CONV
#define PUSH_CONV_GEMM
#else
#define PUSH_MATMUL
#endif
#include "push.h"

#if defined(DTYPE_F16)
#define T4 f16vec4
#else
#define T4 vec4
#endif
#if SPLITK == 2
DECLARE_IN_OF(float, 0, part) // the first pass's sums
DECLARE_IN_OF(vec4, 0, part4) // the same 4 at a time
#else
DECLARE_IN(0, a)   // A; conv: X
#endif
DECLARE_IN(1, b)   // B; conv: W
#if SPLITK != 2
// The same operands read 4 elements at a time (load_a_quad/load_b_quad): the allocator
// aligns every binding to 16 bytes, so element 4i starts a vector.
#if !CONV
DECLARE_IN_OF(T4, 0, a4)
#endif
DECLARE_IN_OF(T4, 1, b4)
#endif
DECLARE_IN(2, c)   // C; conv: bias
DECLARE_IN(3, res) // the fused residual
#if SPLITK == 1
DECLARE_OUT_OF(float, 4, y) // the scratch of the slices' sums
DECLARE_OUT_OF(vec4, 4, y4) // the same 4 sums at a time (gemm_store_quad)
#else
DECLARE_OUT(4, y)
DECLARE_OUT_OF(T4, 4, y4) // Y written 4 elements at a time (gemm_store_quad)
DECLARE_IN_OF(T4, 3, res4) // and the residual read so
#endif

#include "epilogue.glsl"

uint g_m, g_n, g_k; // the product's M, N, K
uint k_begin, k_end; // the part of K this workgroup sums (all of it without split-K)
uint split;          // its slice (split-K)
uint a_base, b_base;
bool a_k_fast, b_n_fast; // which index of a tile load runs along memory

#if CONV
uint plane;
#endif
#if SPLITK != 2
#if CONV
// W[g*Mg + m, k] (binding 1; the "A" operand).
float load_a(uint m, uint k)
{
    return m < g_m && k < k_end ? b[(b_base + m) * g_k + k] : 0.0;
}
#else
float load_a(uint m, uint k)
{
    return m < g_m && k < k_end ? float(a[a_base + m * p.a_sm + k * p.a_sk]) : 0.0;
}
float load_b(uint k, uint n)
{
    return k < k_end && n < g_n ? float(b[b_base + k * p.b_sk + n * p.b_sn]) : 0.0;
}
#endif

// Whether the A tile of rows [m0, m0 + rows) and K [k0, k0 + ks) (k0 a multiple of run)
// lies inside the product and reads as whole aligned runs of `run` elements (4: quads, or
// 8) along A's fast index: then a run is one vector load (load_a_quad; gemm_coop.comp's
// runs of 8). Uniform over the workgroup.
bool a_runs_fast(uint m0, uint k0, uint rows, uint ks, uint run)
{
    if (m0 + rows > g_m || k0 + ks > k_end)
        return false;
#if CONV
    return g_k % run == 0u; // W rows run along k
#else
    bool aligned = a_k_fast ? p.a_sk == 1u && p.a_sm % run == 0u : p.a_sm == 1u && p.a_sk % run == 0u;
    return aligned && a_base % run == 0u;
#endif
}
// The same for the B tile of K [k0, k0 + ks) and columns [n0, n0 + cols).
bool b_runs_fast(uint k0, uint n0, uint ks, uint cols, uint run)
{
#if CONV
    return false; // Xcol is gathered
#else
    if (n0 + cols > g_n || k0 + ks > k_end)
        return false;
    bool aligned = b_n_fast ? p.b_sn == 1u && p.b_sk % run == 0u : p.b_sk == 1u && p.b_sn % run == 0u;
    return aligned && b_base % run == 0u;
#endif
}

#ifdef BK
// The quad l (0 .. BM * BK / 4 - 1) of the including kernel's A tile: its (m, k) offsets in
// the tile; quads run along A's fast index, BK / 4 (k fast, ak) or BM / 4 (m fast) to a line.
uvec2 a_quad_of(bool ak, uint l)
{
    return ak ? uvec2(l / (BK / 4), (l % (BK / 4)) * 4) : uvec2((l % (BM / 4)) * 4, l / (BM / 4));
}
// The quad l of the B tile: its (n, k) offsets (bn: n fast).
uvec2 b_quad_of(bool bn, uint l)
{
    return bn ? uvec2((l % (BN / 4)) * 4, l / (BN / 4)) : uvec2(l / (BK / 4), (l % (BK / 4)) * 4);
}
// The same in the layouts of this workgroup's operands.
uvec2 a_quad_at(uint l)
{
    return a_quad_of(a_k_fast, l);
}
uvec2 b_quad_at(uint l)
{
    return b_quad_of(b_n_fast, l);
}
#endif

// A at (m, k) and the next 3 along its fast index (k when a_k_fast, else m): one vector
// load where `fast` (a_runs_fast of the tile, run 4), else four checked loads.
vec4 load_a_quad(uint m, uint k, bool fast)
{
    if (fast) {
#if CONV
        return vec4(b4[((b_base + m) * g_k + k) / 4u]);
#else
        return vec4(a4[(a_base + m * p.a_sm + k * p.a_sk) / 4u]);
#endif
    }
    uint dm = a_k_fast ? 0u : 1u, dk = 1u - dm;
    return vec4(load_a(m, k), load_a(m + dm, k + dk), load_a(m + 2u * dm, k + 2u * dk),
                load_a(m + 3u * dm, k + 3u * dk));
}
#if CONV == 1
// Xcol's quads. An invocation's B quads (b_quad_at(tid + i * THREADS)) share their 4
// columns, since THREADS is a multiple of BN / 4, and the K loop loads them at k_begin,
// then BK further each step. So the columns' image, output pixel and window origin are
// decoded once (xcol_init), and each quad's row k carries its (input channel, tap) from
// one step to the next (xcol_next): no division in the K loop. The tap's (ky, kx) comes
// from a multiply by kw_magic where that is exact.
#ifdef BK
#if THREADS % (BN / 4) != 0
#error "gemm_operands.glsl: an invocation's B quads must share their columns"
#endif
#define XCOL_QUADS (BK * BN / (4 * THREADS))
#define XCOL_OUTSIDE (-(1 << 30)) // the window origin of a column past N: never inside
int xcol_at[4];      // X's index of (image, the group's first channel, window origin)
int xcol_iy[4], xcol_ix[4]; // the window origin (may lie in the padding)
uint xk_ch[XCOL_QUADS], xk_kr[XCOL_QUADS]; // each quad's (channel, tap) at its next load
uint xk_step_ch, xk_step_kr; // BK as channels and taps
uint in_hw, ksize, kw_magic;

void xcol_init(uint col0, uint tid)
{
    in_hw = p.win.in_h * p.win.in_w;
    ksize = p.win.k_h * p.win.k_w;
    // floor(kr * kw_magic / 2^16) = floor(kr / k_w) for every kr < ksize when ksize * k_w
    // < 2^16 (kw_magic = ceil(2^16 / k_w)); else 0 and a division
    kw_magic = ksize * p.win.k_w < 65536u ? (65536u + p.win.k_w - 1u) / p.win.k_w : 0u;
    uint col = col0 + b_quad_at(tid).x;
    uint n = col / plane, pix = col % plane;
    uint oy = pix / p.win.out_w, ox = pix % p.win.out_w;
    [[unroll]] for (uint c = 0; c < 4; c++) {
        int iy = int(oy * p.win.stride_h) - int(p.win.pad_h);
        int ix = int(ox * p.win.stride_w) - int(p.win.pad_w);
        bool real = col + c < g_n;
        xcol_iy[c] = real ? iy : XCOL_OUTSIDE;
        xcol_ix[c] = ix;
        xcol_at[c] = int((n * p.in_channels + a_base) * in_hw) + iy * int(p.win.in_w) + ix;
        if (++ox == p.win.out_w) { // the next output row, then the next image
            ox = 0;
            if (++oy == p.win.out_h) {
                oy = 0;
                n++;
            }
        }
    }
    xk_step_ch = BK / ksize;
    xk_step_kr = BK % ksize;
    [[unroll]] for (uint i = 0; i < XCOL_QUADS; i++) {
        uint k = k_begin + b_quad_at(tid + i * THREADS).y;
        xk_ch[i] = k / ksize;
        xk_kr[i] = k % ksize;
    }
}

// Xcol at (k, the invocation's 4 columns) for its quad i; then i's row moves BK on.
vec4 xcol_next(uint i, uint k)
{
    vec4 v = vec4(0.0);
    uint ch = xk_ch[i], kr = xk_kr[i];
    xk_kr[i] += xk_step_kr;
    xk_ch[i] += xk_step_ch;
    if (xk_kr[i] >= ksize) {
        xk_kr[i] -= ksize;
        xk_ch[i]++;
    }
    if (k >= k_end)
        return v;
    uint ky = kw_magic != 0u ? (kr * kw_magic) >> 16 : kr / p.win.k_w;
    uint kx = kr - ky * p.win.k_w;
    int dy = int(ky * p.win.dil_h), dx = int(kx * p.win.dil_w);
    int off = int(ch * in_hw) + dy * int(p.win.in_w) + dx;
    [[unroll]] for (uint c = 0; c < 4; c++) {
        // negative coordinates wrap to large unsigned ones: one comparison a side
        bool inside = uint(xcol_iy[c] + dy) < p.win.in_h && uint(xcol_ix[c] + dx) < p.win.in_w;
        if (inside)
            v[c] = float(a[uint(xcol_at[c] + off)]);
    }
    return v;
}
#endif
#elif !CONV
// B at (k, n) and the next 3 along its fast index (n when b_n_fast, else k).
vec4 load_b_quad(uint k, uint n, bool fast)
{
    if (fast)
        return vec4(b4[(b_base + k * p.b_sk + n * p.b_sn) / 4u]);
    uint dn = b_n_fast ? 1u : 0u, dk = 1u - dn;
    return vec4(load_b(k, n), load_b(k + dk, n + dn), load_b(k + 2u * dk, n + 2u * dn),
                load_b(k + 3u * dk, n + 3u * dn));
}
#endif

#ifdef BK
// The B quad i of the invocation, at (k, col) (CONV: Xcol, its columns from xcol_init).
vec4 b_quad(uint i, uint k, uint col, bool fast)
{
#if CONV == 1
    return xcol_next(i, k);
#elif CONV
    return vec4(0.0); // CONV=2 loads its own tiles (gemm_coop.comp)
#else
    return load_b_quad(k, col, fast);
#endif
}
#endif
#endif // SPLITK != 2

// The batch or group of this workgroup (split-K: and its slice, `split`).
uint gemm_z()
{
#if SPLITK == 1
    uint batches = gl_NumWorkGroups.z / p.splits;
    split = gl_WorkGroupID.z / batches;
    return gl_WorkGroupID.z % batches;
#else
    split = 0;
    return gl_WorkGroupID.z;
#endif
}

// The product's M, N, K and operand bases of batch or group z.
void gemm_locate(uint z)
{
#if CONV
    plane = p.win.out_h * p.win.out_w;
    g_m = p.group_out_channels;
    g_n = p.count / p.out_channels;
    g_k = p.group_in_channels * p.win.k_h * p.win.k_w;
    a_base = z * p.group_in_channels; // first input channel of the group
    b_base = z * p.group_out_channels; // first weight row of the group
    a_k_fast = true;
    b_n_fast = true;
#else
    g_m = p.m;
    g_n = p.n;
    g_k = p.k;
    a_base = 0;
    b_base = 0;
    uint rem = z;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_base += idx * p.a_batch_strides[d];
        b_base += idx * p.b_batch_strides[d];
    }
    a_k_fast = p.a_sk == 1u || p.a_sm != 1u;
    b_n_fast = p.b_sn == 1u || p.b_sk != 1u;
#endif
#if SPLITK == 1
    k_begin = split * p.k_slice;
    k_end = min(g_k, k_begin + p.k_slice);
#else
    k_begin = 0;
    k_end = g_k;
#endif
}

#if SPLITK == 1
// The raw sum at (row, col) of slice `split`, batch or group z, into the scratch.
void gemm_store(uint row, uint col, uint z, float acc)
{
    y[((split * (gl_NumWorkGroups.z / p.splits) + z) * g_m + row) * g_n + col] = acc;
}
#else
// Y at (row, col) of batch or group z from the accumulated sum: alpha, C or bias, epilogue.
// Split in three so that gemm_store_each can issue the loads of several results (bias or C,
// residual) before it stores the first: Y's index, what the sum gets added, the store.
uint gemm_at(uint row, uint col, uint z)
{
#if CONV
    return ((col / plane) * p.out_channels + b_base + row) * plane + col % plane;
#else
    return (z * g_m + row) * g_n + col;
#endif
}

float gemm_addend(uint row, uint col)
{
#if CONV
    return p.has_bias != 0u ? float(c[b_base + row]) : 0.0;
#else
    return p.has_c != 0u ? p.beta * float(c[row * p.c_sm + col * p.c_sn]) : 0.0;
#endif
}

// The residual at Y's index at (0 without one).
float gemm_residual(uint at)
{
    return EPI_HAS_RESIDUAL ? float(res[at]) : 0.0;
}

void gemm_put(uint at, float acc, float add, float r)
{
#if CONV
    float v = acc + add;
#else
    float v = p.alpha * acc + add;
#endif
    y[at] = T(epilogue_with(v, r));
}

void gemm_store(uint row, uint col, uint z, float acc)
{
    uint at = gemm_at(row, col, z);
    gemm_put(at, acc, gemm_addend(row, col), gemm_residual(at));
}
#endif

#if SPLITK == 1
// The raw sums (row, col .. col + 3) as one vector store into the scratch when they are 4
// consecutive, aligned elements of its row: false (nothing stored) otherwise.
bool gemm_store_quad(uint row, uint col, uint z, vec4 acc)
{
    if ((g_n & 3u) != 0u || (col & 3u) != 0u || col + 3u >= g_n)
        return false;
    y4[(((split * (gl_NumWorkGroups.z / p.splits) + z) * g_m + row) * g_n + col) / 4u] = acc;
    return true;
}
#else
// Results (row, col .. col + 3) as one vector store when they are 4 consecutive, aligned
// elements of Y: false (nothing stored) otherwise. A graph output lives in host memory, and
// the GPU writes it over the bus: scalar stores 16 bytes apart took 2.4 ms for ResNet-sized
// 4 MiB on the H200 (a Linear layer's output), against 0.38 ms for the same layer writing
// device memory; whole vectors from consecutive invocations make whole lines.
// The 4 results (row, col .. col + 3) from their sums, Y's index of the first at `at` (a
// multiple of 4): alpha, bias or C, the epilogue (the residual's 4 as one vector load).
vec4 gemm_quad_result(uint row, uint col, uint at, vec4 acc)
{
#if CONV
    vec4 v = acc + vec4(gemm_addend(row, col));
#else
    vec4 v = p.alpha * acc + vec4(gemm_addend(row, col), gemm_addend(row, col + 1u),
                                  gemm_addend(row, col + 2u), gemm_addend(row, col + 3u));
#endif
    vec4 r = EPI_HAS_RESIDUAL ? vec4(res4[at / 4u]) : vec4(0.0);
    [[unroll]] for (uint e = 0u; e < 4u; e++)
        v[e] = epilogue_with(v[e], r[e]);
    return v;
}

bool gemm_store_quad(uint row, uint col, uint z, vec4 acc)
{
#if CONV
    if ((plane & 3u) != 0u || (col & 3u) != 0u || col + 3u >= g_n)
        return false; // 4 columns of one image when the plane is a multiple of 4
#else
    if ((g_n & 3u) != 0u || (col & 3u) != 0u || col + 3u >= g_n)
        return false;
#endif
    uint at = gemm_at(row, col, z);
    y4[at / 4u] = T4(gemm_quad_result(row, col, at, acc));
    return true;
}
#endif

// Results (row, col .. col + 3) one at a time, those inside Y's row (col + c < N): where
// gemm_store_quad does not take them (ragged edges; rows whose length is not a multiple of
// 4, such as 7x7 images). Every result's loads (bias or C, residual) are issued before the
// first is stored: called one result at a time, they waited a round trip each, in turn.
void gemm_store_each(uint row, uint col, uint z, vec4 v)
{
#if SPLITK == 1
    [[unroll]] for (uint c = 0; c < 4u; c++)
        if (col + c < g_n)
            gemm_store(row, col + c, z, v[c]);
#else
    uint at[4];
    float add[4], r[4];
    [[unroll]] for (uint c = 0; c < 4u; c++)
        if (col + c < g_n) {
            at[c] = gemm_at(row, col + c, z);
            add[c] = gemm_addend(row, col + c);
            r[c] = gemm_residual(at[c]);
        }
    [[unroll]] for (uint c = 0; c < 4u; c++)
        if (col + c < g_n)
            gemm_put(at[c], v[c], add[c], r[c]);
#endif
}

#endif
