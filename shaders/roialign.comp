#version 450
// RoiAlign (avg and max; half_pixel and output_half_pixel), one invocation per output
// element of Y [R, C, out_h, out_w]. Follows cpu/detect.c step for step (in float here):
// the roi's box in input pixels, an adaptive or fixed grid of bilinear samples per bin,
// 0 for a sample more than one pixel off the plane. Batch indices are int64, read as two
// 32-bit words; a roi whose batch index is out of range gives zeros (the CPU kernel fails
// the run), and its sample grid is capped at ROIALIGN_MAX_SAMPLES as the CPU's is. The
// CPU kernel sums a bin by pixel rows and columns; this one sample by sample, so a node
// whose fixed grid passes ROIALIGN_GPU_MAX_SAMPLES in all stays on the CPU.
#define PUSH_ROIALIGN
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, x)
layout(std430, set = 0, binding = 1) readonly buffer rois_buf { float rois[]; };
layout(std430, set = 0, binding = 2) readonly buffer batch_buf { uint batch[]; };
DECLARE_OUT(3, y)

#define MAX_SAMPLES 65536.0 // ROIALIGN_MAX_SAMPLES of lib/ops/detect.h

float sample_at(uint plane, float yy, float xx)
{
    int h = int(p.height), w = int(p.width);
    if (yy < -1.0 || yy > float(h) || xx < -1.0 || xx > float(w))
        return 0.0;
    yy = max(yy, 0.0);
    xx = max(xx, 0.0);
    int y0 = int(yy), x0 = int(xx), y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= h - 1) {
        y0 = y1 = h - 1;
        yy = float(y0);
    }
    if (x0 >= w - 1) {
        x0 = x1 = w - 1;
        xx = float(x0);
    }
    float ly = yy - float(y0), lx = xx - float(x0), hy = 1.0 - ly, hx = 1.0 - lx;
    uint base = plane * p.height * p.width;
    float v00 = hy * hx * float(x[base + uint(y0 * w + x0)]);
    float v01 = hy * lx * float(x[base + uint(y0 * w + x1)]);
    float v10 = ly * hx * float(x[base + uint(y1 * w + x0)]);
    float v11 = ly * lx * float(x[base + uint(y1 * w + x1)]);
    if (p.is_max != 0u)
        return max(max(v00, v01), max(v10, v11));
    return v00 + v01 + v10 + v11;
}

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint pw = i % p.out_w, ph = (i / p.out_w) % p.out_h;
    uint c = (i / (p.out_w * p.out_h)) % p.channels, r = i / (p.out_w * p.out_h * p.channels);
    uint b_lo = batch[2u * r], b_hi = batch[2u * r + 1u];
    if (b_hi != 0u || b_lo >= p.batches || p.height == 0u || p.width == 0u) {
        y[i] = T(0.0);
        return;
    }
    float offset = p.half_pixel != 0u ? 0.5 : 0.0, s = p.spatial_scale;
    float y_start = rois[4u * r + 1u] * s - offset, x_start = rois[4u * r] * s - offset;
    float roi_h = rois[4u * r + 3u] * s - offset - y_start;
    float roi_w = rois[4u * r + 2u] * s - offset - x_start;
    if (p.half_pixel == 0u) {
        roi_h = max(roi_h, 1.0);
        roi_w = max(roi_w, 1.0);
    }
    float bin_h = roi_h / float(p.out_h), bin_w = roi_w / float(p.out_w);
    float gh = p.sampling_ratio != 0u ? float(p.sampling_ratio) : ceil(bin_h);
    float gw = p.sampling_ratio != 0u ? float(p.sampling_ratio) : ceil(bin_w);
    gh = clamp(gh, 0.0, MAX_SAMPLES);
    gw = clamp(gw, 0.0, floor(MAX_SAMPLES / max(gh, 1.0)));
    uint plane = b_lo * p.channels + c, ngh = uint(gh), ngw = uint(gw);
    float acc = 0.0; // a row's samples are summed apart, then the rows: dense grids stay exact
    for (uint iy = 0u; iy < ngh; iy++) {
        float yy = y_start + float(ph) * bin_h + (float(iy) + 0.5) * bin_h / gh, row = 0.0;
        for (uint ix = 0u; ix < ngw; ix++) {
            float xx = x_start + float(pw) * bin_w + (float(ix) + 0.5) * bin_w / gw;
            float v = sample_at(plane, yy, xx);
            row = p.is_max != 0u ? (ix == 0u ? v : max(row, v)) : row + v;
        }
        acc = p.is_max != 0u ? (iy == 0u ? row : max(acc, row)) : acc + row;
    }
    y[i] = T(p.is_max != 0u ? acc : acc / max(gh * gw, 1.0));
}
