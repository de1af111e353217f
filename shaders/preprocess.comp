#version 450
// com.vkml.ImagePreprocess: a video frame's bytes into an image input, one invocation per
// output pixel (all its channels). Follows lib/cpu/preprocess.c (the reference) operation for operation, in
// float: map the pixel onto the frame, sample bilinearly, YUV -> RGB, channel order,
// (v * scale - mean) / std. The frame is read as 32-bit words (its buffer is rounded up to
// 4 bytes), so no 8-bit storage is needed to read it. A batch of frames lies frame_words
// words apart; invocation pix converts pixel pix % (W*H) of image pix / (W*H).
#define PUSH_PREPROCESS
#ifndef RECT
#define RECT 0
#endif
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN_OF(uint, 0, frame)
#if RECT
// vkml_preprocess.rect_input: x, y, width, height of the source rectangle, read per run
DECLARE_IN_OF(int, 1, rect)
DECLARE_OUT(2, y) // the output last, as the recorder takes it (vk_rec_kernel)
#else
DECLARE_OUT(1, y)
#endif

#define FRAME_PACKED_RGB 0u
#define FRAME_GRAY8 1u
#define FRAME_YUV 2u

uint frame_base; // the first word of this invocation's frame

// Sample comp of pixel (x, y) of a plane of pixels of step samples: a byte, or (wide) a
// 16-bit little-endian word at an even byte, shifted and masked as p.format says.
float fetch(uint plane, uint x, uint y, uint step, uint comp, bool wide)
{
    uint a = p.plane_offsets[plane] + y * p.plane_strides[plane] + (x * step + comp) * (wide ? 2u : 1u);
    uint word = frame[frame_base + (a >> 2)] >> ((a & 3u) * 8u);
    if (!wide)
        return float(word & 255u);
    uint shift = (p.format >> 8) & 15u, bits = (p.format >> 12) & 31u;
    return float(((word & 65535u) >> shift) & ((1u << bits) - 1u));
}

float sample_plane(uint plane, uint w, uint h, float sx, float sy, uint step, uint comp, bool wide)
{
    sx = min(max(sx, 0.0), float(w - 1));
    sy = min(max(sy, 0.0), float(h - 1));
    uint x0 = uint(sx), y0 = uint(sy);
    uint x1 = x0 + 1 < w ? x0 + 1 : w - 1, y1 = y0 + 1 < h ? y0 + 1 : h - 1;
    precise float fx = sx - float(x0), fy = sy - float(y0);
    float a = fetch(plane, x0, y0, step, comp, wide), b = fetch(plane, x1, y0, step, comp, wide);
    float c = fetch(plane, x0, y1, step, comp, wide), d = fetch(plane, x1, y1, step, comp, wide);
    precise float top = a + (b - a) * fx, bottom = c + (d - c) * fx;
    precise float r = top + (bottom - top) * fy;
    return r;
}

float clamp255(float v)
{
    return min(max(v, 0.0), 255.0);
}

vec3 frame_rgb(float sx, float sy)
{
    uint w = p.width, h = p.height;
    uint kind = p.format & 3u, stride = p.rgb_offsets >> 24;
    if (kind == FRAME_PACKED_RGB)
        return vec3(sample_plane(0, w, h, sx, sy, stride, p.rgb_offsets & 255u, false),
                    sample_plane(0, w, h, sx, sy, stride, (p.rgb_offsets >> 8) & 255u, false),
                    sample_plane(0, w, h, sx, sy, stride, (p.rgb_offsets >> 16) & 255u, false));
    if (kind == FRAME_GRAY8)
        return vec3(sample_plane(0, w, h, sx, sy, 1, 0, false));
    bool semi = (p.format & 4u) != 0, wide = (p.format & 32u) != 0;
    uint sub_x = (p.format >> 3) & 1u, sub_y = (p.format >> 4) & 1u;
    precise float luma = sample_plane(0, w, h, sx, sy, 1, 0, wide) * p.sample_scale;
    uint cw = (w + sub_x) >> sub_x, ch = (h + sub_y) >> sub_y;
    precise float cx = sub_x != 0 ? (sx + 0.5) * 0.5 - 0.5 : sx;
    precise float cy = sub_y != 0 ? (sy + 0.5) * 0.5 - 0.5 : sy;
    precise float u, v;
    if (semi) {
        u = sample_plane(1, cw, ch, cx, cy, 2, 0, wide);
        v = sample_plane(1, cw, ch, cx, cy, 2, 1, wide);
    } else {
        u = sample_plane(1, cw, ch, cx, cy, 1, 0, wide);
        v = sample_plane(2, cw, ch, cx, cy, 1, 0, wide);
    }
    float chroma_zero = float(1u << (((p.format >> 12) & 31u) - 1u));
    u = (u - chroma_zero) * p.sample_scale;
    v = (v - chroma_zero) * p.sample_scale;
    bool bt709 = (p.flags & 8u) != 0, full = (p.flags & 4u) != 0;
    float kr = bt709 ? 0.2126 : 0.299, kb = bt709 ? 0.0722 : 0.114;
    float kg = 1.0 - kr - kb;
    precise float yy = full ? luma : (luma - 16.0) * (255.0 / 219.0);
    precise float cb = full ? u : u * (255.0 / 224.0);
    precise float cr = full ? v : v * (255.0 / 224.0);
    precise float r = yy + 2.0 * (1.0 - kr) * cr;
    precise float g = yy - (2.0 * kb * (1.0 - kb) / kg) * cb - (2.0 * kr * (1.0 - kr) / kg) * cr;
    precise float b = yy + 2.0 * (1.0 - kb) * cb;
    return vec3(clamp255(r), clamp255(g), clamp255(b));
}

#define RESIZE_LETTERBOX 1
#define RESIZE_CROP 2

// The geometry of the source rectangle, as preprocess_resolve_rect (lib/ops/preprocess.c)
// computes it: inv_scale, offset (x, y), src (x, y), box (x0, x1, y0, y1). Without RECT the
// host resolved it into the push constants.
struct geometry {
    vec2 inv_scale, offset, src;
    ivec4 box;
};

geometry source_geometry()
{
    geometry g;
    g.inv_scale = vec2(p.inv_scale_x, p.inv_scale_y);
    g.offset = vec2(p.offset_x, p.offset_y);
    g.src = vec2(0.0);
    g.box = ivec4(p.box_x & 0xffffu, p.box_x >> 16, p.box_y & 0xffffu, p.box_y >> 16);
#if RECT
    int fw_i = int(p.width), fh_i = int(p.height);
    int rx = clamp(rect[0], 0, fw_i - 1), ry = clamp(rect[1], 0, fh_i - 1);
    precise float fw = float(clamp(rect[2], 1, fw_i - rx)), fh = float(clamp(rect[3], 1, fh_i - ry));
    float ow = float(p.out_width), oh = float(p.out_height);
    uint mode = (p.flags >> 4) & 3u;
    g.src = vec2(float(rx), float(ry));
    g.box = ivec4(0, int(p.out_width), 0, int(p.out_height));
    g.offset = vec2(0.0);
    g.inv_scale = vec2(fw / ow, fh / oh);
    if (mode == RESIZE_LETTERBOX) {
        precise float s = min(ow / fw, oh / fh);
        precise float cw = max(1.0, floor(fw * s + 0.5)), ch = max(1.0, floor(fh * s + 0.5));
        g.inv_scale = vec2(fw / cw, fh / ch);
        g.offset = vec2(floor((ow - cw) * 0.5), floor((oh - ch) * 0.5));
        g.box = ivec4(int(g.offset.x), int(g.offset.x) + int(cw), int(g.offset.y),
                      int(g.offset.y) + int(ch));
    } else if (mode == RESIZE_CROP) {
        precise float s = max(ow / fw, oh / fh);
        g.inv_scale = vec2(1.0 / s);
        g.offset = vec2((ow - fw * s) * 0.5, (oh - fh * s) * 0.5);
    }
#endif
    return g;
}

void main()
{
    uint index = flat_index();
    if (index >= p.count)
        return;
    uint W = p.out_width, H = p.out_height, C = p.channels;
    uint image = index / (W * H), pix = index % (W * H);
    frame_base = image * p.frame_words;
    uint out_base = image * W * H * C;
    int x = int(pix % W), yy = int(pix / W);
    geometry g = source_geometry();
    bool inside = x >= g.box.x && x < g.box.y && yy >= g.box.z && yy < g.box.w;
    vec3 rgb;
    if (inside) {
        precise float sx = (float(x) + 0.5 - g.offset.x) * g.inv_scale.x - 0.5;
        precise float sy = (float(yy) + 0.5 - g.offset.y) * g.inv_scale.y - 0.5;
#if RECT
        sx += g.src.x;
        sy += g.src.y;
#endif
        rgb = frame_rgb(sx, sy);
    } else {
        rgb = vec3(p.pad_value);
    }
    for (uint c = 0; c < C; c++) {
        precise float v;
        if (C == 1)
            v = 0.299 * rgb.r + 0.587 * rgb.g + 0.114 * rgb.b;
        else
            v = rgb[(p.flags & 2u) != 0 ? 2 - c : c];
        v = (v * p.scale - p.mean[c]) / p.std[c];
        uint i = out_base + ((p.flags & 1u) != 0 ? pix * C + c : c * W * H + pix);
#if IS_FLOAT
        y[i] = T(v);
#else
        y[i] = T(uint(floor(min(max(v, 0.0), 255.0) + 0.5)));
#endif
    }
}
