// The integer products of qmatmul.comp and qmatmul_coop.comp: Y = A x B over int32 sums of
//   (A[row, k] - a_zero(row)) * (B[k, col] - b_zero)
// for one batch or group z (gl_WorkGroupID.z), with the operands, zero points and the
// store of a result by op. Wrapping int32 sums of the same products are the same bits in
// any order, so every kernel gives the CPU's results.
//
// QCONV=0: MatMulInteger / QLinearMatMul (push.h's qmatmul_push). A [.., m, k] is the
//   variant's type T, B [.., k, n] bytes signed per b_signed; bindings 0 a, 1 b, 2 A's zero
//   point at run time (a_zero_in_buffer), 3 B's scales (QLinearMatMul: b_scale_in_buffer, 1
//   one or 2 one per column), 4 B's zero points (b_zero_in_buffer, the same), 5 y.
// QCONV=1: ConvInteger / QLinearConv (qconv_push) as an implicit GEMM: rows the output
//   channels of group z, columns (image, oy, ox), K (channel of the group, ky, kx), A the
//   weights [M][C/group][kh][kw] (bytes signed per w_signed), B the input X [N][C][H][W]
//   (type T) read through the window; a tap in the padding reads X's zero point (it adds
//   0). Bindings 0 x, 1 w, 2 the int32 bias (QLinearConv) or X's zero point at run time
//   (ConvInteger: x_zero_in_buffer), 3 the weights' scales (QLinearConv:
//   w_scale_in_buffer, 1 one or 2 one per output channel), 4 the weights' zero points
//   (w_zero_in_buffer, the same), 5 y.
// QLINEAR=1 writes saturate(roundEven(acc * multiplier) + y_zero) as bytes, in double as
// the CPU does; QLINEAR=0 writes acc as int32.
//
// Split-K: the push block's `splits` slices of K, k_slice each (a multiple of the K step),
// z = batch * splits + slice. QSPLIT=1 (the products' first pass) writes each slice's exact
// part of the sum, sum over its K of (a - za)(b - zb), as int32 at Y's binding (the
// scratch, [batch][slice][m][n]); QSPLIT=2 (qprod_finish.comp) reads them at binding 0 in
// place of A, sums the slices (wrapping: the same bits) and stores each result.
#ifndef VKML_QPROD_GLSL
#define VKML_QPROD_GLSL
#ifndef QSPLIT
#define QSPLIT 0
#endif
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#if QCONV
#define PUSH_QCONV
#else
#define PUSH_QMATMUL
#endif
#include "buffers.glsl"
#include "push.h"

#if QSPLIT == 2
DECLARE_IN_OF(int, 0, part)
#elif QCONV
DECLARE_IN(0, x)
#else
DECLARE_IN(0, a)
#endif
#if QCONV
DECLARE_IN_OF(uint8_t, 1, w)
#if QLINEAR
DECLARE_IN_OF(int, 2, bias)
DECLARE_IN_OF(float, 3, w_scale)
#else
DECLARE_IN(2, x_zero_buf)
#endif
DECLARE_IN_OF(uint8_t, 4, w_zero_buf)
#define Y_BINDING 5
#define A_BYTES w // A's bytes
#define A_BYTES_BINDING 1
#define B_SIGNED (IS_SIGNED != 0)
#define A_SIGNED (p.w_signed != 0)
#else
DECLARE_IN_OF(uint8_t, 1, b)
DECLARE_IN(2, a_zero_buf)
#if QLINEAR
DECLARE_IN_OF(float, 3, b_scale)
#endif
DECLARE_IN_OF(uint8_t, 4, b_zero_buf)
#define Y_BINDING 5
#define A_BYTES a
#define A_BYTES_BINDING 0
#define A_SIGNED (IS_SIGNED != 0)
#define B_SIGNED (p.b_signed != 0)
#endif
#if QLINEAR && QSPLIT != 1
DECLARE_OUT_OF(uint8_t, Y_BINDING, y)
#else
DECLARE_OUT_OF(int, Y_BINDING, y)
#endif

// A byte as a signed or unsigned value.
int qp_byte(uint v, bool is_signed)
{
    return is_signed ? (int(v & 255u) ^ 128) - 128 : int(v & 255u);
}

uint qp_m, qp_n, qp_k;     // the product of one batch or group: rows, columns and K
uint qp_z;                 // its batch or group
uint qp_k_begin, qp_k_end; // the slice of K of this workgroup
uint qp_part_z;            // its z: batch * splits + slice
uint qp_a_off;         // where its A starts (elements)
#if !QCONV
uint qp_b_off;
#endif

// The geometry of slice z % splits of batch or group z / splits.
void qp_locate(uint zs)
{
    uint z = zs / p.splits;
    qp_part_z = zs;
    qp_z = z;
#if QCONV
    qp_m = p.group_out_channels;
    qp_n = p.count / p.out_channels;
    qp_k = p.group_in_channels * p.win.k_h * p.win.k_w;
    qp_a_off = z * qp_m * qp_k;
#else
    qp_m = p.m;
    qp_n = p.n;
    qp_k = p.k;
    uint rem = z;
    qp_a_off = 0;
    qp_b_off = 0;
    for (int d = int(p.batch_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.batch_dims[d];
        rem /= p.batch_dims[d];
        qp_a_off += idx * p.a_batch_strides[d];
        qp_b_off += idx * p.b_batch_strides[d];
    }
#endif
    qp_k_begin = (zs % p.splits) * p.k_slice;
    qp_k_end = min(qp_k, qp_k_begin + p.k_slice);
}

// The batches (a conv's groups) of the product.
uint qp_batches()
{
#if QCONV
    return p.out_channels / p.group_out_channels;
#else
    uint count = 1;
    for (uint d = 0; d < p.batch_rank; d++)
        count *= p.batch_dims[d];
    return count;
#endif
}

#if QSPLIT != 2

// B's zero point for a column (X's for a conv, one for every column).
int qp_b_zero(uint col)
{
#if QCONV
#if !QLINEAR
    if (p.x_zero_in_buffer != 0)
        return int(A(x_zero_buf[0]));
#endif
    return int(p.x_zero);
#else
    if (p.b_zero_in_buffer != 0)
        return qp_byte(uint(b_zero_buf[p.b_zero_in_buffer == 2u ? col : 0u]), B_SIGNED);
    return int(p.b_zero);
#endif
}

// Whether B's zero point may differ between columns (a uniform).
bool qp_b_zero_by_col()
{
#if QCONV
    return false;
#else
    return p.b_zero_in_buffer == 2u;
#endif
}

// A's zero point for a row (the weights' for the output channel of a conv).
int qp_a_zero(uint row)
{
#if QCONV
    if (p.w_zero_in_buffer != 0)
        return qp_byte(uint(w_zero_buf[p.w_zero_in_buffer == 2u ? qp_z * qp_m + row : 0u]), A_SIGNED);
    return int(p.w_zero);
#else
    return p.a_zero_in_buffer != 0 ? int(A(a_zero_buf[0])) : int(p.a_zero);
#endif
}

// Whether A's zero point may differ between rows (a uniform).
bool qp_a_zero_by_row()
{
#if QCONV
    return p.w_zero_in_buffer == 2u;
#else
    return false;
#endif
}

// A[row, k] of the product (row < qp_m, k < qp_k).
int qp_a_at(uint row, uint k)
{
#if QCONV
    return qp_byte(uint(w[qp_a_off + row * qp_k + k]), A_SIGNED);
#else
    return int(A(a[qp_a_off + row * qp_k + k]));
#endif
}

#if QCONV
// The pixel of column col: X's index of its image's first channel of group z at the
// input's origin, and its window's origin (in the padding where negative).
uint qp_pixel(uint col, out int iy0, out int ix0)
{
    uint plane = p.win.out_h * p.win.out_w;
    uint img = col / plane, pix = col % plane;
    iy0 = int((pix / p.win.out_w) * p.win.stride_h) - int(p.win.pad_h);
    ix0 = int((pix % p.win.out_w) * p.win.stride_w) - int(p.win.pad_w);
    return (img * p.in_channels + qp_z * p.group_in_channels) * p.win.in_h * p.win.in_w;
}

// X at tap k (channel, ky, kx) of a pixel (qp_pixel), or xz in the padding.
int qp_x_tap(uint at, int iy0, int ix0, uint k, int xz)
{
    uint taps = p.win.k_h * p.win.k_w, c = k / taps, t = k % taps;
    int iy = iy0 + int((t / p.win.k_w) * p.win.dil_h), ix = ix0 + int((t % p.win.k_w) * p.win.dil_w);
    // negative coordinates wrap to large unsigned ones: one comparison a side
    if (uint(iy) >= p.win.in_h || uint(ix) >= p.win.in_w)
        return xz;
    return int(A(x[at + (c * p.win.in_h + uint(iy)) * p.win.in_w + uint(ix)]));
}
#endif

// B[k, col] of the product (k < qp_k, col < qp_n); xz: qp_b_zero(0) (a conv's padding).
int qp_b_at(uint k, uint col, int xz)
{
#if QCONV
    int iy0, ix0;
    uint at = qp_pixel(col, iy0, ix0);
    return qp_x_tap(at, iy0, ix0, k, xz);
#else
    return qp_byte(uint(b[qp_b_off + k * qp_n + col]), B_SIGNED);
#endif
}

#endif // QSPLIT != 2

#if QLINEAR && QSPLIT != 1
// The requantizing multiplier of (row, col): a_scale * b_scale / y_scale in float as the
// CPU computes it (qprod_multiplier), per row (a conv's output channel) where the weights'
// scale is, per column where a matrix product's B's is.
float qp_multiplier(uint row, uint col)
{
#if QCONV
    uint mode = p.w_scale_in_buffer;
    float a_scale = p.x_scale;
#define QP_B_SCALE(i) w_scale[i]
    uint at = mode == 2u ? qp_z * qp_m + row : 0u;
#else
    uint mode = p.b_scale_in_buffer;
    float a_scale = p.a_scale;
#define QP_B_SCALE(i) b_scale[i]
    uint at = mode == 2u ? col : 0u;
#endif
    if (mode != 0u) {
        precise float ab = a_scale * QP_B_SCALE(at);
        // float's correctly rounded quotient: double's, rounded again, is the same
        return float(double(ab) / double(p.y_scale));
    }
    return p.multiplier;
}
#else
float qp_multiplier(uint row, uint col)
{
    return 1.0;
}
#endif

// Stores the sum of (row, col) (inside the product); mult: qp_multiplier(row, col). QSPLIT=1:
// the slice's part, into the scratch.
void qp_result(uint row, uint col, int acc, float mult)
{
#if QSPLIT == 1
    y[(qp_part_z * qp_m + row) * qp_n + col] = acc;
#else
#if QCONV
    uint plane = p.win.out_h * p.win.out_w, channel = qp_z * qp_m + row;
    uint at = ((col / plane) * p.out_channels + channel) * plane + col % plane;
#if QLINEAR
    if (p.has_bias != 0)
        acc += bias[channel];
#endif
#else
    uint at = (qp_z * qp_m + row) * qp_n + col;
#endif
#if QLINEAR
    double q = roundEven(double(acc) * double(mult)) + double(int(p.y_zero));
    q = clamp(q, double(p.y_lo), double(p.y_hi));
    y[at] = uint8_t(uint(int(q)) & 255u);
#else
    y[at] = acc;
#endif
#endif
}

#endif
