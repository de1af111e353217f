#version 450
// DynamicQuantizeLinear, first step: one workgroup finds the range of x (widened to hold
// 0) and writes the uint8 quantization parameters:
//   scale = (max - min) / 255 (1/255 for an all-zero range), zero = rint(clamp(-min / scale))
// The second step is quant.comp's uint8 QuantizeLinear with this scale and zero point.
// Both divisions are correctly rounded (div_rn) in float, as the CPU kernel computes them.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#define PUSH_COPY
#include "buffers.glsl"
#include "push.h"
#include "div_rn.glsl"

#define RANGE_WG 256
layout(local_size_x = RANGE_WG, local_size_y = 1, local_size_z = 1) in;

DECLARE_IN_OF(float, 0, x)
DECLARE_OUT_OF(float, 1, scale)
DECLARE_OUT_OF(uint8_t, 2, zero)

shared float lo_part[RANGE_WG], hi_part[RANGE_WG];

void main()
{
    uint tid = gl_LocalInvocationID.x;
    float lo = 0.0, hi = 0.0;
    for (uint i = tid; i < p.count; i += RANGE_WG) {
        float v = x[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    lo_part[tid] = lo;
    hi_part[tid] = hi;
    barrier();
    for (uint half_n = RANGE_WG / 2; half_n > 0; half_n /= 2) {
        if (tid < half_n) {
            lo_part[tid] = min(lo_part[tid], lo_part[tid + half_n]);
            hi_part[tid] = max(hi_part[tid], hi_part[tid + half_n]);
        }
        barrier();
    }
    if (tid == 0) {
        lo = lo_part[0];
        hi = hi_part[0];
        precise float s = div_rn(hi > lo ? hi - lo : 1.0, 255.0);
        precise float z = roundEven(clamp(0.0 - div_rn(lo, s), 0.0, 255.0));
        scale[0] = s;
        zero[0] = uint8_t(uint(z));
    }
}
