#version 450
// Integer matrix products, one invocation per output element of Y [batch, m, n]:
//   acc = sum_k (A[b, m, k] - a_zero) * (B[b, k, n] - b_zero)   (int32, wrapping)
// MatMulInteger (-DQLINEAR=0) writes acc as int32; QLinearMatMul (-DQLINEAR=1) writes
// saturate(roundEven(acc * multiplier) + y_zero) as 8-bit (in double: exact like the CPU).
// A is the variant's type T (int8 or uint8); B and Y are read and written as bytes,
// signed per b_signed / y_lo. a_zero comes from binding 2 when a_zero_in_buffer, else
// from the push block; the other zero points and the scales are per tensor, in the block.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define PUSH_QMATMUL
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, a)
DECLARE_IN_OF(uint8_t, 1, b)
DECLARE_IN(2, a_zero_buf)
#if QLINEAR
DECLARE_OUT_OF(uint8_t, 3, y)
#else
DECLARE_OUT_OF(int, 3, y)
#endif

int b_at(uint i)
{
    int v = int(uint(b[i]));
    return p.b_signed != 0 ? (v ^ 128) - 128 : v;
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint mn = p.m * p.n, rem = i / mn, row = (i % mn) / p.n, col = i % p.n;
    uint a_off = 0, b_off = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        a_off += idx * p.a_batch_strides[d];
        b_off += idx * p.b_batch_strides[d];
    }
    int az = p.a_zero_in_buffer != 0 ? int(A(a_zero_buf[0])) : int(p.a_zero);
    int bz = int(p.b_zero);
    a_off += row * p.k;
    b_off += col;
    int acc = 0;
    for (uint kk = 0; kk < p.k; kk++)
        acc += (int(A(a[a_off + kk])) - az) * (b_at(b_off + kk * p.n) - bz);
#if QLINEAR
    double q = roundEven(double(acc) * double(p.multiplier)) + double(int(p.y_zero));
    q = clamp(q, double(p.y_lo), double(p.y_hi));
    y[i] = uint8_t(uint(int(q)) & 255u);
#else
    y[i] = acc;
#endif
}
