#version 450
// Elementwise binary op with numpy broadcasting: y[i] = a[ia] OP b[ib], where ia/ib are
// the output coordinates dotted with each input's strides (0 where broadcast). The op is
// one -D OP_<NAME>; OUT_BOOL: y is uint8 0/1 (comparisons); B_I32/B_I64/B_U32/B_U64/B_F32/
// B_F64: b (Pow's exponent) has that type instead of T. Integer x / 0 and x % 0 give 0,
// MIN / -1 wraps. An integer base with a float exponent takes the exponent truncated and
// saturated to int64 (NaN 0), as the CPU kernel's int64 class does.
#define PUSH_BINARY
#include "rank.glsl"
#include "buffers.glsl"
#include "push.h"
#include "eltwise_math.glsl"
#ifdef DTYPE_F64
#define DIV_RN_DOUBLE
#endif
#include "div_rn.glsl"
#extension GL_EXT_control_flow_attributes : require

#if defined(OUT_BOOL) || defined(DTYPE_BOOL)
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#endif
#if defined(B_I64) || defined(B_U64) || ((defined(B_F32) || defined(B_F64)) && !IS_FLOAT)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#if defined(B_I64)
#define B int64_t
#elif defined(B_U64)
#define B uint64_t
#elif defined(B_I32)
#define B int
#elif defined(B_U32)
#define B uint
#elif defined(B_F32)
#define B float
#elif defined(B_F64)
#define B double
#else
#define B T
#endif
// Pow's exponent type E and its conversion from B.
#if (defined(B_F32) || defined(B_F64)) && !IS_FLOAT
#define E int64_t
E exponent(B v)
{
    return isnan(v) ? E(0) : v <= B(-9.2233720368547758e18) ? E(-9223372036854775807l - 1l)
         : v >= B(9.2233720368547758e18) ? E(9223372036854775807l) : E(v);
}
#else
#define E A
#define exponent(v) A(v)
#endif
// Bits of A: shifts by this much or more give 0 (GLSL leaves them undefined).
#if defined(DTYPE_I64) || defined(DTYPE_U64)
#define A_BITS 64
#else
#define A_BITS 32
#endif
#ifdef OUT_BOOL
#define Y uint8_t
#else
#define Y T
#endif

#include "index.glsl"

DECLARE_IN(0, a)
DECLARE_IN_OF(B, 1, b)
DECLARE_OUT_OF(Y, 2, y)

#if !IS_FLOAT
// b^e by squaring: at most 64 steps; negative e truncates 1/b^|e| toward zero.
A ipow(A base, E e)
{
    if (e < E(0))
        return base == A(1) ? A(1) : base == A(-1) ? ((e & E(1)) != E(0) ? base : A(1)) : A(0);
    A r = A(1);
    for (int k = 0; k < 64 && e != E(0); k++) {
        if ((e & E(1)) != E(0))
            r *= base;
        base *= base;
        e >>= 1;
    }
    return r;
}
#endif

#if defined(OP_POW)
A op(A x, E z)
{
#if IS_FLOAT
    return pow_c(x, z);
#else
    return ipow(x, z);
#endif
}
#else
A op(A x, A z)
{
#if defined(OP_ADD)
    return x + z;
#elif defined(OP_SUB)
    return x - z;
#elif defined(OP_MUL)
    return x * z;
#elif defined(OP_DIV) && IS_FLOAT
    // Correctly rounded, as the CPU divides: a quotient a later Round or Floor reads (the
    // expanded DynamicQuantizeLinear) must not sit one ulp across the boundary.
    return div_rn(x, z);
#elif defined(OP_DIV)
#if IS_SIGNED
    if (z == A(-1))
        return A(0) - x;
#endif
    return z == A(0) ? A(0) : x / z;
#elif defined(OP_FMOD) && IS_FLOAT && defined(FMOD_EXACT)
    // float32 in double (the b_fmod_exact kernel, devices with shaderFloat64): z * q and
    // x - z * q are exact there while the quotient stays under 2^29, so the remainder's sign
    // is too, whether or not the device fuses fma (Vulkan does not promise it; lavapipe's
    // rounding put a whole |z| on remainders near 0 or |z|, one element in a million)
    double dx = double(x), dz = double(z), q = trunc(dx / dz), az = abs(dz);
    double r = dx - dz * q;
    if (abs(r) >= az)
        r -= sign(r) * az;
    if (r != 0.0 && sign(r) != sign(dx))
        r += sign(dx) * az;
    return A(r);
#elif defined(OP_FMOD) && IS_FLOAT
    // C fmod: the sign of the dividend; GLSL mod() floors instead. The quotient from a
    // GPU's division may be off by one ulp (Vulkan allows 2.5), so trunc() may be one off:
    // the remainder, exact by fma, is brought back into (-|z|, |z|) with x's sign.
    A q = trunc(x / z), az = abs(z);
    A r = fma(-z, q, x);
    if (abs(r) >= az)
        r -= sign(r) * az;
    if (r != A(0) && sign(r) != sign(x))
        r += sign(x) * az;
    return r;
#elif defined(OP_FMOD) || defined(OP_MOD)
    if (z == A(0))
        return A(0);
#if IS_SIGNED
    // GLSL leaves % undefined for negative operands (NVIDIA and lavapipe differ): the
    // remainder of the magnitudes, unsigned so that the most negative value has one, with
    // the dividend's sign (C's %).
    UA ux = x < A(0) ? UA(0) - UA(x) : UA(x), uz = z < A(0) ? UA(0) - UA(z) : UA(z);
    A r = A(ux % uz);
    if (x < A(0))
        r = -r;
#else
    A r = x % z;
#endif
#if IS_SIGNED && defined(OP_MOD)
    // Python's %: the sign of the divisor.
    if (r != A(0) && ((r < A(0)) != (z < A(0))))
        r += z;
#endif
    return r;
#elif defined(OP_SHL)
    return z >= A(A_BITS) ? A(0) : x << z;
#elif defined(OP_SHR)
    return z >= A(A_BITS) ? A(0) : x >> z;
#elif defined(OP_BITWISE_AND)
    return x & z;
#elif defined(OP_BITWISE_OR)
    return x | z;
#elif defined(OP_BITWISE_XOR)
    return x ^ z;
#elif defined(OP_AND)
    return x != A(0) && z != A(0) ? A(1) : A(0);
#elif defined(OP_OR)
    return x != A(0) || z != A(0) ? A(1) : A(0);
#elif defined(OP_XOR)
    return (x != A(0)) != (z != A(0)) ? A(1) : A(0);
#elif defined(OP_EQUAL)
    return x == z ? A(1) : A(0);
#elif defined(OP_LESS)
    return x < z ? A(1) : A(0);
#elif defined(OP_LESS_EQUAL)
    return x <= z ? A(1) : A(0);
#elif defined(OP_GREATER)
    return x > z ? A(1) : A(0);
#elif defined(OP_GREATER_EQUAL)
    return x >= z ? A(1) : A(0);
#elif defined(OP_MIN) && IS_FLOAT
    return isnan(x) || x < z ? x : z;
#elif defined(OP_MAX) && IS_FLOAT
    return isnan(x) || x > z ? x : z;
#elif defined(OP_MIN)
    return x < z ? x : z;
#elif defined(OP_MAX)
    return x > z ? x : z;
#elif defined(OP_PRELU)
    return x < A(0) ? x * z : x;
#else
#error unknown OP
#endif
}
#endif

// Element i's offsets into a and b, for rank > 1 (main takes rank 1 itself).
void operand_offsets(uint i, out uint ia, out uint ib)
{
    ia = 0;
    ib = 0;
    uint rem = i;
    for (int d = int(min(p.rank, MAX_RANK)) - 1; d >= 0; d--) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        ia += c * p.a_strides[d];
        ib += c * p.b_strides[d];
    }
}

// DENSE_ELEMS outputs per invocation, strided by the grid, loads before stores (index.glsl).
// Every loop over them unrolls, and rank 1 (dense operands of one shape, dims merged into
// one, or a scalar) has its own copy without the dims loop: BERT-style's GPU time 3,707 ->
// 3,664 us at fp32 on the H200 (2026-11-25), the other harness models within noise. The
// dependent-dispatch cost of this kernel is unchanged by it (bench_floor: 2.6-2.8 us a
// dispatch of this SPIR-V in the raw loop, against 2.3-2.4 for the unary kernel's).
void main()
{
    uint g = flat_index(), stride = dense_stride(p.count);
    if (g >= stride)
        return;
    A va[DENSE_ELEMS];
    E vb[DENSE_ELEMS];
#ifdef DENSE_OPERANDS
    // a and b dense in y's shape: the unary kernel's form, loads under the bound test
    [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
        uint i = g + e * stride;
        va[e] = i < p.count ? A(a[i]) : A(0);
        vb[e] = i < p.count ? exponent(b[i]) : E(0);
    }
#else
    if (p.rank == 1u) {
        [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
            uint i = g + e * stride;
            i = i < p.count ? i : 0u;
            va[e] = A(a[i * p.a_strides[0]]);
            vb[e] = exponent(b[i * p.b_strides[0]]);
        }
    } else {
        [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
            uint i = g + e * stride, ia, ib;
            operand_offsets(i < p.count ? i : 0u, ia, ib);
            va[e] = A(a[ia]);
            vb[e] = exponent(b[ib]);
        }
    }
#endif
    [[unroll]] for (uint e = 0u; e < DENSE_ELEMS; e++) {
        uint i = g + e * stride;
        if (i < p.count)
            y[i] = Y(op(va[e], vb[e]));
    }
}
