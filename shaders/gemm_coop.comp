#version 450
// gemm_tiled.comp's products (MatMul/Gemm with CONV=0, implicit-GEMM conv with CONV=1; the
// same operands, loaders and epilogue: common/gemm_operands.glsl) with the inner product on
// cooperative matrices (the tensor cores): float16 A and B fragments of 16x16, float32
// accumulators; on GL_KHR_cooperative_matrix with COOP_KHR=1 (the glslang_next compiler;
// shaders/meson.build), else on GL_NV_cooperative_matrix (Debian 12's glslc). CONV=2 is the conv over taps
// (its own tile loads, below: K over (tap, channel), weights packed [M][taps][C]).
//
// A workgroup computes a BM x BN block of Y with (BM/WM) x (BN/WN) subgroups of 32
// invocations (the host requires subgroupSize 32), each a WM x WN block as (WM/16) x
// (WN/16) accumulators of 16x16. Over K in steps of BK through two shared stages (one
// barrier a step): every invocation loads its share of the next step's A and B tiles into
// registers during the current step's products, along each operand's fast index (vector
// loads where the tile lies inside and aligned: gemm_operands.glsl's a_runs_fast), rounded
// to float16 there (float32 storage under precision fp32-fast; values past float16's range
// become infinities, as in a Cast), then stores them into the other stage. The plain
// products (SMEM_VEC=1) move runs of 8 elements as uvec4 and write ragged tiles straight
// into the stage; the gather conv (CONV=1) moves quads. Each tile keeps its operand's memory order in shared
// memory (A as (m, k) or (k, m), B as (k, n) or (n, k): stores run along lines) and the
// fragments load row- or column-major to match. Lines are padded by 8 halves (16 bytes):
// fragment loads stay 16-byte aligned, lines spread over the banks. After the K loop each
// subgroup stages its accumulators one at a time in its own 16 x 20 floats of shared
// memory, and its invocations store them through gemm_store_quad or gemm_store_each
// (alpha, C or bias, the fused epilogue, bounds checks). SMEM_VEC=1 keeps the tiles as
// uvec4 (see below); there a float16 block whose every tile lies inside and aligned, A as
// (m, k), runs k_loop_fast (no tests, each invocation's places as offsets plus constants). Every loop that indexes acc must unroll (acc
// then stays in registers; the driver's statistics, tests/bench/bench_kernel_stats, show
// local memory otherwise).
#ifndef COOP_KHR
#define COOP_KHR 0
#endif
#if COOP_KHR
// The same kernel on VK_KHR_cooperative_matrix (built by glslang_next; Debian 12's glslang
// has no GL_KHR_cooperative_matrix)
#extension GL_KHR_cooperative_matrix : require
#define ACC_MAT coopmat<float, gl_ScopeSubgroup, FRAG, FRAG, gl_MatrixUseAccumulator>
#define A_MAT coopmat<float16_t, gl_ScopeSubgroup, FRAG, FRAG, gl_MatrixUseA>
#define B_MAT coopmat<float16_t, gl_ScopeSubgroup, FRAG, FRAG, gl_MatrixUseB>
#define MAT_LOAD_ROWS(m, buf, at, stride) coopMatLoad(m, buf, at, stride, gl_CooperativeMatrixLayoutRowMajor)
#define MAT_LOAD_COLS(m, buf, at, stride) coopMatLoad(m, buf, at, stride, gl_CooperativeMatrixLayoutColumnMajor)
#define MAT_STORE_ROWS(m, buf, at, stride) coopMatStore(m, buf, at, stride, gl_CooperativeMatrixLayoutRowMajor)
#define MAT_MULADD(a, b, c) coopMatMulAdd(a, b, c)
#else
#extension GL_NV_cooperative_matrix : require
#define ACC_MAT fcoopmatNV<32, gl_ScopeSubgroup, FRAG, FRAG>
#define A_MAT fcoopmatNV<16, gl_ScopeSubgroup, FRAG, FRAG>
#define B_MAT A_MAT
#define MAT_LOAD_ROWS(m, buf, at, stride) coopMatLoadNV(m, buf, at, stride, false)
#define MAT_LOAD_COLS(m, buf, at, stride) coopMatLoadNV(m, buf, at, stride, true)
#define MAT_STORE_ROWS(m, buf, at, stride) coopMatStoreNV(m, buf, at, stride, false)
#define MAT_MULADD(a, b, c) coopMatMulAddNV(a, b, c)
#endif
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "buffers.glsl"

#define SUBGROUP 32        // invocations per subgroup (checked by the host)
#define FRAG 16            // fragment M = N = K
#define SG_X (BN / WN)     // subgroups along N
#define SG_Y (BM / WM)     // subgroups along M
#define THREADS (SG_X * SG_Y * SUBGROUP)
#define FM (WM / FRAG)     // accumulators per subgroup along M
#define FN (WN / FRAG)     // and along N
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

#include "gemm_operands.glsl"

#define A_QUADS (BM * BK / (4 * THREADS)) // 4-element loads of the A tile per invocation
#define B_QUADS (BK * BN / (4 * THREADS))
#if BK % FRAG != 0 || (BM * BK) % (4 * THREADS) != 0 || (BK * BN) % (4 * THREADS) != 0
#error "gemm_coop.comp: BK a multiple of 16 and whole quads per invocation"
#endif
#define PAD 8                        // halves past each line of a tile
#define A_K_LINE (BK + PAD)          // halves per line of A as (m, k)
#define A_M_LINE (BM + PAD)          // and as (k, m)
#define B_N_LINE (BN + PAD)          // B as (k, n)
#define B_K_LINE (BK + PAD)          // B as (n, k)
#define MAX2(x, y) ((x) > (y) ? (x) : (y))
#define A_STAGE MAX2(BM * A_K_LINE, BK * A_M_LINE) // halves per stage of A
#define B_STAGE MAX2(BK * B_N_LINE, BN * B_K_LINE)
#define SC_STRIDE (FRAG + 4)  // floats per row of a subgroup's staged result fragment
#ifndef SMEM_VEC
#define SMEM_VEC 0
#endif
// PREFETCH register sets of tiles in flight (SMEM_VEC=1, CONV=0; else 1): the tiles of step
// t + PREFETCH are loaded at the start of step t and stored into their stage at the end of
// step t + PREFETCH - 1, so their loads have PREFETCH steps of products to arrive. STAGES =
// PREFETCH + 1 shared stages: a ragged tile, written straight into its stage when loaded,
// goes to the stage read by the step before, which every subgroup has left. Every kernel
// runs with 1: on the H200 (2026-11-30) 2 and 3 took the 128x64 and 64x64 tiles from 102-155
// registers to 142-186, and every product measured ran slower (4096^3 on 64x64: 76 TFLOP/s
// against 135; BERT-base fp16 1,625 us of GPU time against 1,512).
#ifndef PREFETCH
#define PREFETCH 1
#endif
#if PREFETCH > 1 && (!SMEM_VEC || CONV != 0)
#error "gemm_coop.comp: PREFETCH > 1 with SMEM_VEC=1 and CONV=0 only"
#endif
#define STAGES (PREFETCH + 1)
#if SMEM_VEC
// Tiles as uvec4 (8 halves): fragment offsets and strides in units of 8 halves, so that
// the compiler knows every fragment row starts 16-byte aligned. The result fragments are staged in sa after the K loop.
#define SM_UNIT 8u
shared uvec4 sa[MAX2(STAGES * A_STAGE / 8, SG_X * SG_Y * FRAG * SC_STRIDE / 4)];
shared uvec4 sb[STAGES * B_STAGE / 8];
#else
#define SM_UNIT 1u
shared float16_t sa[STAGES * A_STAGE];
shared float16_t sb[STAGES * B_STAGE];
shared float sc[SG_X * SG_Y * FRAG * SC_STRIDE];
#endif

// Rounded to nearest as a float16 cast does: float32 values past +-65504 (fp32-fast)
// become infinities. Saturating them instead, on every element or behind a range test a
// quad, took the Linear stack's four Gemms from 551 us of GPU time to 1,148 or 876 on the
// H200 (2026-11-24): these kernels are bound by the instructions around their loads.
f16vec4 to_half(vec4 v)
{
    return f16vec4(v);
}

uvec4 pack8(f16vec4 lo, f16vec4 hi)
{
    return uvec4(packFloat2x16(lo.xy), packFloat2x16(lo.zw), packFloat2x16(hi.xy),
                 packFloat2x16(hi.zw));
}

// The K loop loads and stores the next step's tiles on every step, past the last too (into
// a stage no step reads): load_tile keeps such a load inside its operands (the conv over
// taps), and the loop's body is one block without branches, whose loads the driver's
// compiler schedules before the products.
#define TILE_EVERY_STEP (CONV == 2)
#if CONV == 2
// The conv over taps: K runs over (tap, input channel of the group), so that a K step of BK
// lies inside one tap (the host requires the group's input channels, and split-K slices,
// to be multiples of BK). W comes packed as [M][taps][C/group] (vk_conv_packs_weights): an
// A row's step is BK adjacent elements, loaded 8 at a time (one 16-byte load in float16) and stored as
// one uvec4 into A as (m, k). An invocation loads B_RUN channels of one output pixel's input
// at the step's tap: one bounds test for all of them, addresses a plane apart (X is NCHW:
// the subgroup's invocations read adjacent pixels of a channel), stored as whole vectors
// along k into B as (n, k). The tap and channel advance with each load_tile.
#if !SMEM_VEC || THREADS % BN != 0
#error "gemm_coop.comp CONV=2: SMEM_VEC=1, whole pixels per invocation"
#endif
#define A_UNITS (BM * BK / (8 * THREADS)) // 8-element runs of W an invocation loads a step
#define B_RUN (BN * BK / THREADS)         // channels of one pixel an invocation loads
#if A_UNITS < 1 || (BM * BK) % (8 * THREADS) != 0 || B_RUN % 8 != 0 || BK % B_RUN != 0
#error "gemm_coop.comp CONV=2: tile and workgroup do not divide"
#endif
// The invocation's A runs of 8 (W at T4 index at): float16 W as one 16-byte load each (as
// two 8-byte loads, ResNet-50 b8 took 1,444 us of GPU time on the H200 against 1,362;
// docs/performance.md); float32 W (fp32-fast) as two vectors, rounded when stored.
#if defined(DTYPE_F16)
DECLARE_IN_OF(uvec4, 1, w8)
uvec4 reg_a[A_UNITS];
void load_a_run(uint i, uint at)
{
    reg_a[i] = w8[at / 2u];
}
uvec4 a_run_held(uint i)
{
    return reg_a[i];
}
#else
f16vec4 reg_a[2 * A_UNITS];
void load_a_run(uint i, uint at)
{
    reg_a[2 * i] = f16vec4(b4[at]);
    reg_a[2 * i + 1] = f16vec4(b4[at + 1u]);
}
uvec4 a_run_held(uint i)
{
    return pack8(reg_a[2 * i], reg_a[2 * i + 1]);
}
#endif
float16_t reg_b[B_RUN];
bool b_inside;              // reg_b's pixel lies inside the input (else its loads are dropped)
uint tap_c, tap;            // the next load's first channel and its tap
uint tap_ky, tap_kx;        // the tap's row and column
int px_iy, px_ix;           // the invocation's pixel's window origin (may lie in the padding)
uint px_at;                 // X's index of its (image, first channel) at the input's origin
bool px_real;               // its column lies inside the product
uint in_hw;

void taps_init(uint col0, uint tid)
{
    in_hw = p.win.in_h * p.win.in_w;
    uint col = col0 + tid % BN;
    px_real = col < g_n;
    uint n = col / plane, pix = col % plane;
    uint oy = pix / p.win.out_w, ox = pix % p.win.out_w;
    px_iy = int(oy * p.win.stride_h) - int(p.win.pad_h);
    px_ix = int(ox * p.win.stride_w) - int(p.win.pad_w);
    px_at = (n * p.in_channels + a_base + (tid / BN) * B_RUN) * in_hw;
    tap = k_begin / p.group_in_channels;
    tap_c = k_begin % p.group_in_channels;
    tap_ky = tap / p.win.k_w;
    tap_kx = tap % p.win.k_w;
}

void load_tile(const uint r, uint s, uint row0, uint col0, uint k0, uint tid)
{
    // Every load unconditional, at an address inside its operand: on the H200 a load behind
    // a test that differs between invocations was waited for where the test's branch ends
    // (docs/performance.md, "Loads behind branches"). The K loop calls this every step, the
    // last one too (TILE_EVERY_STEP), and the tap advances by selects: a branch after the
    // loads made the driver's compiler move the loaded halves into their registers at the
    // branch's end, and so wait for the loads before the products ("Moves that wait").
    uint k = min(tap * p.group_in_channels + tap_c, k_end - BK); // past the end: the last step again
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) {
        uint u = tid + i * THREADS, row = min(row0 + u / (BK / 8u), g_m - 1u); // rows past M are never stored
        uint at = ((b_base + row) * g_k + k + (u % (BK / 8u)) * 8u) / 4u;
        load_a_run(i, at);
    }
    int iy = px_iy + int(tap_ky * p.win.dil_h), ix = px_ix + int(tap_kx * p.win.dil_w);
    // negative coordinates wrap to large unsigned ones: one comparison a side
    bool inside = px_real && uint(iy) < p.win.in_h && uint(ix) < p.win.in_w;
    // outside: the first pixel of the same channels of image 0, dropped in store_tile
    uint at = inside ? px_at + tap_c * in_hw + uint(iy * int(p.win.in_w) + ix)
                     : (a_base + (tid / BN) * B_RUN + tap_c) * in_hw;
    b_inside = inside;
    [[unroll]] for (uint j = 0; j < B_RUN; j++)
        reg_b[j] = float16_t(a[at + j * in_hw]);
    // the next step: a tap (and its column, and row) further where the channels wrap
    bool next_tap = tap_c + BK == p.group_in_channels, next_row = next_tap && tap_kx + 1u == p.win.k_w;
    tap_c = next_tap ? 0u : tap_c + BK;
    tap += next_tap ? 1u : 0u;
    tap_kx = next_row ? 0u : tap_kx + (next_tap ? 1u : 0u);
    tap_ky += next_row ? 1u : 0u;
}

void store_tile(const uint r, uint s, uint tid)
{
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        sa[(s * A_STAGE + (u / (BK / 8u)) * A_K_LINE + (u % (BK / 8u)) * 8u) / 8u] = a_run_held(i);
    }
    uint h = s * B_STAGE + (tid % BN) * B_K_LINE + (tid / BN) * B_RUN;
    if (!b_inside) // after the products: the loads had them to arrive
        [[unroll]] for (uint j = 0; j < B_RUN; j++)
            reg_b[j] = float16_t(0.0);
    [[unroll]] for (uint v = 0; v < B_RUN / 8; v++)
        sb[h / 8u + v] = pack8(f16vec4(reg_b[8 * v], reg_b[8 * v + 1], reg_b[8 * v + 2], reg_b[8 * v + 3]),
                               f16vec4(reg_b[8 * v + 4], reg_b[8 * v + 5], reg_b[8 * v + 6], reg_b[8 * v + 7]));
}
#elif SMEM_VEC
// Products with tiles as uvec4, in runs of 8 elements along each operand's fast index, one
// uvec4 each. A tile that lies inside the product and aligned (a_runs_fast: every step but
// the ragged edges of most products) goes through registers, so that its loads are in
// flight during the current step's products: float16 a run as one uvec4 load through
// a8/b8, float32 (fp32-fast) as two vector loads rounded to float16 and packed. Any other
// tile goes straight into its stage in a rolled loop of checked loads (the stage being
// filled was last read before the previous barrier): unrolled, the edge's checked loads
// had made the kernel's binary 400-800 KB (bench_kernel_stats), the K loop slower than
// the instruction cache.
#if CONV != 0
#error "gemm_coop.comp: SMEM_VEC=1 with CONV=1"
#endif
#define A_OCTS (BM * BK / (8 * THREADS)) // runs of 8 of the A tile per invocation
#define B_OCTS (BK * BN / (8 * THREADS))
#if A_OCTS < 1 || B_OCTS < 1 || (BM * BK) % (8 * THREADS) != 0 || (BK * BN) % (8 * THREADS) != 0
#error "gemm_coop.comp SMEM_VEC=1: whole runs of 8 per invocation"
#endif
#if defined(DTYPE_F16)
DECLARE_IN_OF(uvec4, 0, a8)
DECLARE_IN_OF(uvec4, 1, b8)
#define RUN_FAST 8u // the alignment a tile needs for registers: whole uvec4 runs
#else
#define RUN_FAST 4u // whole quads
#endif
uvec4 reg_a[PREFETCH][A_OCTS], reg_b[PREFETCH][B_OCTS]; // register set r: reg_a[r]
bool held_a[PREFETCH], held_b[PREFETCH]; // its tiles wait there for store_tile

// The run l of the A tile: its (m, k) offsets; runs go along A's fast index.
uvec2 a_oct_at(uint l)
{
    return a_k_fast ? uvec2(l / (BK / 8), (l % (BK / 8)) * 8) : uvec2((l % (BM / 8)) * 8, l / (BM / 8));
}
// The run l of the B tile: its (n, k) offsets.
uvec2 b_oct_at(uint l)
{
    return b_n_fast ? uvec2((l % (BN / 8)) * 8, l / (BN / 8)) : uvec2(l / (BK / 8), (l % (BK / 8)) * 8);
}
// Their places in a stage, in uvec4.
uint a_slot(uint s, uvec2 q)
{
    return (s * A_STAGE + (a_k_fast ? q.x * A_K_LINE + q.y : q.y * A_M_LINE + q.x)) / 8u;
}
uint b_slot(uint s, uvec2 q)
{
    return (s * B_STAGE + (b_n_fast ? q.y * B_N_LINE + q.x : q.x * B_K_LINE + q.y)) / 8u;
}

// The run of A at (m, k), or B at (k, n), as 8 float16: vector loads where fast (the tile's
// RUN_FAST test), else checked ones.
uvec4 a_run(uint m, uint k, bool fast)
{
#if defined(DTYPE_F16)
    if (fast)
        return a8[(a_base + m * p.a_sm + k * p.a_sk) / 8u];
#endif
    uint am = a_k_fast ? 0u : 4u; // the second quad's offset along m
    return pack8(to_half(load_a_quad(m, k, fast)), to_half(load_a_quad(m + am, k + 4u - am, fast)));
}
uvec4 b_run(uint k, uint n, bool fast)
{
#if defined(DTYPE_F16)
    if (fast)
        return b8[(b_base + k * p.b_sk + n * p.b_sn) / 8u];
#endif
    uint bn = b_n_fast ? 4u : 0u;
    return pack8(to_half(load_b_quad(k, n, fast)), to_half(load_b_quad(k + 4u - bn, n + bn, fast)));
}

// The tiles at k0 for stage s: into register set r (a constant where called), or (ragged)
// into the stage now.
void load_tile(const uint r, uint s, uint row0, uint col0, uint k0, uint tid)
{
    held_a[r] = a_runs_fast(row0, k0, BM, BK, RUN_FAST);
    held_b[r] = b_runs_fast(k0, col0, BK, BN, RUN_FAST);
    if (held_a[r]) {
        [[unroll]] for (uint i = 0; i < A_OCTS; i++) {
            uvec2 q = a_oct_at(tid + i * THREADS); // (m, k)
            reg_a[r][i] = a_run(row0 + q.x, k0 + q.y, true);
        }
    } else {
        [[dont_unroll]] for (uint l = tid; l < BM * BK / 8; l += THREADS) {
            uvec2 q = a_oct_at(l);
            sa[a_slot(s, q)] = a_run(row0 + q.x, k0 + q.y, false);
        }
    }
    if (held_b[r]) {
        [[unroll]] for (uint i = 0; i < B_OCTS; i++) {
            uvec2 q = b_oct_at(tid + i * THREADS); // (n, k)
            reg_b[r][i] = b_run(k0 + q.y, col0 + q.x, true);
        }
    } else {
        [[dont_unroll]] for (uint l = tid; l < BK * BN / 8; l += THREADS) {
            uvec2 q = b_oct_at(l);
            sb[b_slot(s, q)] = b_run(k0 + q.y, col0 + q.x, false);
        }
    }
}

// The tiles held in register set r into stage s: one uvec4 a run.
void store_tile(const uint r, uint s, uint tid)
{
    if (held_a[r])
        [[unroll]] for (uint i = 0; i < A_OCTS; i++)
            sa[a_slot(s, a_oct_at(tid + i * THREADS))] = reg_a[r][i];
    if (held_b[r])
        [[unroll]] for (uint i = 0; i < B_OCTS; i++)
            sb[b_slot(s, b_oct_at(tid + i * THREADS))] = reg_b[r][i];
}
#else
f16vec4 reg_a[A_QUADS], reg_b[B_QUADS];

void load_tile(const uint r, uint s, uint row0, uint col0, uint k0, uint tid)
{
    bool fast_a = a_runs_fast(row0, k0, BM, BK, 4u), fast_b = b_runs_fast(k0, col0, BK, BN, 4u);
    [[unroll]] for (uint i = 0; i < A_QUADS; i++) {
        uvec2 q = a_quad_at(tid + i * THREADS); // (m, k)
        reg_a[i] = to_half(load_a_quad(row0 + q.x, k0 + q.y, fast_a));
    }
    [[unroll]] for (uint i = 0; i < B_QUADS; i++) {
        uvec2 q = b_quad_at(tid + i * THREADS); // (n, k)
        reg_b[i] = to_half(b_quad(i, k0 + q.y, col0 + q.x, fast_b));
    }
}

// Into stage s, each quad along a line (its operand's fast index).
void store_tile(const uint r, uint s, uint tid)
{
    [[unroll]] for (uint i = 0; i < A_QUADS; i++) {
        uvec2 q = a_quad_at(tid + i * THREADS);
        uint at = s * A_STAGE + (a_k_fast ? q.x * A_K_LINE + q.y : q.y * A_M_LINE + q.x);
        [[unroll]] for (uint c = 0; c < 4; c++)
            sa[at + c] = reg_a[i][c];
    }
    [[unroll]] for (uint i = 0; i < B_QUADS; i++) {
        uvec2 q = b_quad_at(tid + i * THREADS);
        uint at = s * B_STAGE + (b_n_fast ? q.y * B_N_LINE + q.x : q.x * B_K_LINE + q.y);
        [[unroll]] for (uint c = 0; c < 4; c++)
            sb[at + c] = reg_b[i][c];
    }
}
#endif // CONV == 2

// The staged results at e .. e + 3 (e a multiple of 4).
vec4 staged4(uint e)
{
#if SMEM_VEC
    return uintBitsToFloat(sa[e / 4u]);
#else
    return vec4(sc[e], sc[e + 1u], sc[e + 2u], sc[e + 3u]);
#endif
}

ACC_MAT acc[FM][FN];

// One step's products: the subgroup's fragments of stage s into acc (ak, bn: the tiles'
// layouts as constants).
void products(const bool ak, const bool bn, uint s, uint sg_row, uint sg_col)
{
    uint a_stage = s * A_STAGE, b_stage = s * B_STAGE;
    [[unroll]] for (uint kk = 0; kk < BK; kk += FRAG) {
        A_MAT fa[FM];
        B_MAT fb;
        [[unroll]] for (uint i = 0; i < FM; i++) {
            uint m = sg_row + i * FRAG;
            if (ak)
                MAT_LOAD_ROWS(fa[i], sa, (a_stage + m * A_K_LINE + kk) / SM_UNIT, A_K_LINE / SM_UNIT);
            else
                MAT_LOAD_COLS(fa[i], sa, (a_stage + kk * A_M_LINE + m) / SM_UNIT, A_M_LINE / SM_UNIT);
        }
        [[unroll]] for (uint j = 0; j < FN; j++) {
            uint n = sg_col + j * FRAG;
            if (bn)
                MAT_LOAD_ROWS(fb, sb, (b_stage + kk * B_N_LINE + n) / SM_UNIT, B_N_LINE / SM_UNIT);
            else
                MAT_LOAD_COLS(fb, sb, (b_stage + n * B_K_LINE + kk) / SM_UNIT, B_K_LINE / SM_UNIT);
            [[unroll]] for (uint i = 0; i < FM; i++)
                acc[i][j] = MAT_MULADD(fa[i], fb, acc[i][j]);
        }
    }
}

// The K loop: the workgroup's tiles through the stages, each subgroup's products into acc;
// ak and bn are a_k_fast and b_n_fast as constants (main calls it per layout). Step t reads
// stage t % STAGES. The loop runs over steps in strides of PREFETCH, its body unrolled
// PREFETCH times so that each step's register set is a constant. With PREFETCH 1 this form
// is kept for what it measured on the H200 (2026-11-30, same call, fp16 GPU time):
// ResNet-50 b8 1,521 us against 1,639 for a single loop over k0 < k_end (its 3x3 convs over
// taps, CONV=2, 31-33 us each against 36-39), b1 877 against 889, BERT-base 1,523 against
// 1,509. A single loop counted in steps, rolled or not, measured as the loop over k0.
void k_loop(const bool ak, const bool bn, uint row0, uint col0, uint sg_row, uint sg_col, uint tid)
{
    uint steps = k_begin < k_end ? (k_end - k_begin + BK - 1) / BK : 0u;
    [[unroll]] for (uint j = 0; j < PREFETCH; j++)
        if (j < steps)
            load_tile(j, j, row0, col0, k_begin + j * BK, tid);
    if (steps > 0u)
        store_tile(0, 0, tid);
    barrier();
    uint s = 0; // the stage step t reads
    for (uint t0 = 0; t0 < steps; t0 += PREFETCH) {
        [[unroll]] for (uint r = 0; r < PREFETCH; r++) {
            uint t = t0 + r;
            if (t >= steps)
                break;
            uint s_next = s + 1u == STAGES ? 0u : s + 1u, s_prev = s == 0u ? STAGES - 1u : s - 1u;
            // set r held step t's tiles (stored a step ago): step t + PREFETCH's go there, in
            // flight during the products below; a ragged one into the stage step t - 1 read
            if (TILE_EVERY_STEP || t + PREFETCH < steps)
                load_tile(r, s_prev, row0, col0, k_begin + (t + PREFETCH) * BK, tid);
            products(ak, bn, s, sg_row, sg_col);
            // Step t + 1's tiles (set r + 1) into the next stage, last read before the
            // previous barrier: one barrier a step.
            if (TILE_EVERY_STEP || t + 1u < steps)
                store_tile((r + 1u) % PREFETCH, s_next, tid);
            barrier();
            s = s_next;
        }
    }
}

#if SMEM_VEC && CONV == 0 && PREFETCH == 1 && defined(DTYPE_F16) && THREADS % (BK / 8) == 0 && \
    THREADS % (BN / 8) == 0
#define HAS_FAST_LOOP 1
// The K loop of a block whose every tile lies inside the product, aligned (a_runs_fast and
// b_runs_fast at every step: main's test), A as (m, k): no tests in the loop, and each
// invocation's runs at one offset in A, B and a stage plus constants (k_loop's general
// loads recompute each run's place from its index and the layouts every step). bn: B's
// layout as a constant.
void k_loop_fast(const bool bn, uint row0, uint col0, uint sg_row, uint sg_col, uint tid)
{
    uint steps = (k_end - k_begin) / BK;
    // A run i of an invocation: row tid / (BK / 8) + i * A_ROWS, k (tid % (BK / 8)) * 8
#define A_ROWS (THREADS / (BK / 8))
    uint a_at = (a_base + (row0 + tid / (BK / 8)) * p.a_sm + k_begin + (tid % (BK / 8)) * 8u) / 8u;
    uint a_run_step = A_ROWS * p.a_sm / 8u;
    uint a_slot0 = ((tid / (BK / 8)) * A_K_LINE + (tid % (BK / 8)) * 8) / 8;
    // B (k, n): run i at k tid / (BN / 8) + i * B_KS, n (tid % (BN / 8)) * 8; B (n, k): at n
    // tid / (BK / 8) + i * B_NS, k (tid % (BK / 8)) * 8
#define B_KS (THREADS / (BN / 8))
#define B_NS (THREADS / (BK / 8))
    uint b_at = bn ? (b_base + (k_begin + tid / (BN / 8)) * p.b_sk + col0 + (tid % (BN / 8)) * 8u) / 8u
                   : (b_base + k_begin + (tid % (BK / 8)) * 8u + (col0 + tid / (BK / 8)) * p.b_sn) / 8u;
    uint b_run_step = bn ? B_KS * p.b_sk / 8u : B_NS * p.b_sn / 8u;
    uint b_k_step = bn ? BK * p.b_sk / 8u : BK / 8u; // one K step further
    uint b_slot0 = bn ? ((tid / (BN / 8)) * B_N_LINE + (tid % (BN / 8)) * 8) / 8
                      : ((tid / (BK / 8)) * B_K_LINE + (tid % (BK / 8)) * 8) / 8;
    uint b_slot_step = bn ? B_KS * B_N_LINE / 8 : B_NS * B_K_LINE / 8;
    [[unroll]] for (uint i = 0; i < A_OCTS; i++)
        reg_a[0][i] = a8[a_at + i * a_run_step];
    [[unroll]] for (uint i = 0; i < B_OCTS; i++)
        reg_b[0][i] = b8[b_at + i * b_run_step];
    [[unroll]] for (uint i = 0; i < A_OCTS; i++)
        sa[a_slot0 + i * (A_ROWS * A_K_LINE / 8)] = reg_a[0][i];
    [[unroll]] for (uint i = 0; i < B_OCTS; i++)
        sb[b_slot0 + i * b_slot_step] = reg_b[0][i];
    barrier();
    uint s = 0;
    for (uint t = 0; t < steps; t++) {
        uint s_next = s ^ 1u;
        if (t + 1u < steps) {
            a_at += BK / 8u;
            b_at += b_k_step;
            [[unroll]] for (uint i = 0; i < A_OCTS; i++)
                reg_a[0][i] = a8[a_at + i * a_run_step];
            [[unroll]] for (uint i = 0; i < B_OCTS; i++)
                reg_b[0][i] = b8[b_at + i * b_run_step];
        }
        products(true, bn, s, sg_row, sg_col);
        if (t + 1u < steps) {
            [[unroll]] for (uint i = 0; i < A_OCTS; i++)
                sa[s_next * (A_STAGE / 8) + a_slot0 + i * (A_ROWS * A_K_LINE / 8)] = reg_a[0][i];
            [[unroll]] for (uint i = 0; i < B_OCTS; i++)
                sb[s_next * (B_STAGE / 8) + b_slot0 + i * b_slot_step] = reg_b[0][i];
        }
        barrier();
        s = s_next;
    }
}
#else
#define HAS_FAST_LOOP 0
#endif

void main()
{
    uint z = gemm_z();
    gemm_locate(z);
    uint tid = gl_LocalInvocationID.x;
    uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
    uint sg_row = (sg / SG_X) * WM, sg_col = (sg % SG_X) * WN; // the subgroup's block
    uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
#if CONV == 1
    xcol_init(col0, tid);
#elif CONV == 2
    taps_init(col0, tid);
#endif
    [[unroll]] for (uint i = 0; i < FM; i++)
        [[unroll]] for (uint j = 0; j < FN; j++)
            acc[i][j] = ACC_MAT(0.0);
    // One copy of the K loop per operand layout: fragments loaded under a runtime choice
    // of layout kept the loop at a tenth of its speed on the H200.
#if CONV == 2
    k_loop(true, false, row0, col0, sg_row, sg_col, tid); // A as (m, k), B as (n, k)
#else
#if HAS_FAST_LOOP
    // every step's tiles inside and aligned: K in whole steps, the block inside M and N
    bool all_fast = a_k_fast && k_begin < k_end && (k_end - k_begin) % BK == 0u &&
                    a_runs_fast(row0, k_begin, BM, k_end - k_begin, 8u) &&
                    b_runs_fast(k_begin, col0, k_end - k_begin, BN, 8u);
    if (all_fast) {
        if (b_n_fast)
            k_loop_fast(true, row0, col0, sg_row, sg_col, tid);
        else
            k_loop_fast(false, row0, col0, sg_row, sg_col, tid);
    } else
#endif
    if (a_k_fast) {
        if (b_n_fast)
            k_loop(true, true, row0, col0, sg_row, sg_col, tid);
        else
            k_loop(true, false, row0, col0, sg_row, sg_col, tid);
    } else {
        if (b_n_fast)
            k_loop(false, true, row0, col0, sg_row, sg_col, tid);
        else
            k_loop(false, false, row0, col0, sg_row, sg_col, tid);
    }
#endif

    uint stage = sg * FRAG * SC_STRIDE;
#if SMEM_VEC
    barrier(); // every subgroup is done with the tiles: sa stages the results
#endif
    // One fragment at a time: staged in the subgroup's 16 x 20 floats, then stored by its
    // invocations through gemm_store. The loop over fragments stays rolled and picks its
    // accumulator by comparison (acc indexed by constants only: a variable index put acc
    // in local memory, every MulAdd a load and a store, a tenth of the speed on the H200),
    // so the epilogue's code is there once, not once per fragment and quad: unrolled, the
    // blocks' binaries were 200-640 KB (bench_kernel_stats), and the store phase of
    // layer1's 3x3 conv (ResNet-50 b8) took a quarter of its time.
    [[dont_unroll]] for (uint f = 0; f < FM * FN; f++) {
        [[unroll]] for (uint i = 0; i < FM; i++)
            [[unroll]] for (uint j = 0; j < FN; j++)
                if (f == i * FN + j) {
#if SMEM_VEC
                    MAT_STORE_ROWS(acc[i][j], sa, stage / 4u, SC_STRIDE / 4u);
#else
                    MAT_STORE_ROWS(acc[i][j], sc, stage, SC_STRIDE);
#endif
                }
        subgroupMemoryBarrierShared();
        subgroupBarrier(); // the fragment is in the stage for every invocation of the subgroup
        uint row_f = row0 + sg_row + (f / FN) * FRAG, col_f = col0 + sg_col + (f % FN) * FRAG;
        // 4 adjacent results an invocation: one vector store where they lie whole and
        // aligned in a row of Y (gemm_store_quad), else gemm_store_each
        [[dont_unroll]] for (uint t = 0; t < FRAG * FRAG / (4 * SUBGROUP); t++) {
            uint e = lane + t * SUBGROUP;
            uint r = e / (FRAG / 4), cc = (e % (FRAG / 4)) * 4;
            uint row = row_f + r, col = col_f + cc;
            vec4 v = staged4(stage + r * SC_STRIDE + cc);
            if (row < g_m && !gemm_store_quad(row, col, z, v))
                gemm_store_each(row, col, z, v);
        }
        subgroupBarrier(); // read before the next fragment overwrites it
    }
}
