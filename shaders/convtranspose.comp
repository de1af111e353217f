#version 450
// ConvTranspose (1-D to 3-D, group, strides, dilations, pads, output_padding), one
// invocation per output element of Y [N, M, O0, O1, O2]: the gather form of
//   o = i * stride - pad_begin + k * dilation
// over the group's input channels and the kernel taps (bounded by W's size).
#define PUSH_CONVTRANSPOSE
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, x)
DECLARE_IN(1, w)
DECLARE_IN(2, bias)
DECLARE_OUT(3, y)

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint o[3], rest = i;
    for (int d = 2; d >= 0; d--) {
        o[d] = rest % p.out_dims[d];
        rest /= p.out_dims[d];
    }
    uint m = rest % p.out_channels, n = rest / p.out_channels;
    uint g = m / p.group_out, mg = m % p.group_out;
    uint ksize = p.kernel[0] * p.kernel[1] * p.kernel[2];
    uint isize = p.in_dims[0] * p.in_dims[1] * p.in_dims[2];
    float acc = p.has_bias != 0 ? float(bias[m]) : 0.0;
    for (uint k0 = 0; k0 < p.kernel[0]; k0++) {
        int t0 = int(o[0]) + int(p.pad_begin[0]) - int(k0 * p.dilation[0]);
        if (t0 < 0 || t0 % int(p.stride[0]) != 0 || t0 / int(p.stride[0]) >= int(p.in_dims[0]))
            continue;
        for (uint k1 = 0; k1 < p.kernel[1]; k1++) {
            int t1 = int(o[1]) + int(p.pad_begin[1]) - int(k1 * p.dilation[1]);
            if (t1 < 0 || t1 % int(p.stride[1]) != 0 ||
                t1 / int(p.stride[1]) >= int(p.in_dims[1]))
                continue;
            for (uint k2 = 0; k2 < p.kernel[2]; k2++) {
                int t2 = int(o[2]) + int(p.pad_begin[2]) - int(k2 * p.dilation[2]);
                if (t2 < 0 || t2 % int(p.stride[2]) != 0 ||
                    t2 / int(p.stride[2]) >= int(p.in_dims[2]))
                    continue;
                uint at = (uint(t0 / int(p.stride[0])) * p.in_dims[1] +
                           uint(t1 / int(p.stride[1]))) * p.in_dims[2] +
                          uint(t2 / int(p.stride[2]));
                uint kp = (k0 * p.kernel[1] + k1) * p.kernel[2] + k2;
                for (uint c = 0; c < p.group_in; c++) {
                    uint ci = g * p.group_in + c;
                    acc += float(x[(n * p.in_channels + ci) * isize + at]) *
                           float(w[(ci * p.group_out + mg) * ksize + kp]);
                }
            }
        }
    }
    y[i] = T(acc);
}
