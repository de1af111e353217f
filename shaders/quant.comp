#version 450
// QuantizeLinear (-DDEQUANT=0): y[i] = saturate(roundEven(x[i] / scale) + zero), x float,
// y and zero of the variant's integer type T. DequantizeLinear (-DDEQUANT=1):
// y[i] = (x[i] - zero) * scale, x and zero of type T, y float. Scale and zero point of
// element i at quant_scale_index (lib/ops/quant.h): per tensor, per axis or blocked.
// -DHALF=1: the float side and the scale are float16 (the quotient rounded to float16, as
// ONNX divides in the scale's precision); else float. The quotient is correctly rounded
// (div_rn), as the CPU's is, so roundEven sees the same value on every GPU.
#if HALF
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define F float16_t
#else
#define F float
#endif
#define PUSH_QUANT
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"
#include "div_rn.glsl"
#include "half_rte.glsl"

#if DEQUANT
DECLARE_IN(0, x)
DECLARE_OUT_OF(F, 3, y)
#else
DECLARE_IN_OF(F, 0, x)
DECLARE_OUT(3, y)
#endif
DECLARE_IN_OF(F, 1, scale)
DECLARE_IN(2, zero)

uint scale_index(uint i)
{
    uint in_axis = i % p.inner, rest = i / p.inner;
    return (rest / p.axis_dim) * p.outer_stride + ((rest % p.axis_dim) / p.block) * p.axis_stride +
           in_axis * p.inner_stride;
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint s = scale_index(i);
    float z = p.has_zero != 0 ? float(A(zero[s])) : 0.0;
#if DEQUANT
    y[i] = F((float(A(x[i])) - z) * float(scale[s]));
#else
    precise float q = div_rn(float(x[i]), float(scale[s]));
#if HALF
    q = half_rte(q); /* the quotient in float16, as ONNX and the CPU round it */
#endif
    // NaN quantizes to 0 (as the CPU kernel does); infinities saturate.
    y[i] = isnan(q) ? T(0) : T(clamp(roundEven(q) + z, p.lo, p.hi));
#endif
}
