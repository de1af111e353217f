// 2-D sliding-window geometry shared by conv2d.comp and pool2d.comp (1-D ops use H = 1).
#ifndef VKML_WINDOW_GLSL
#define VKML_WINDOW_GLSL

struct Window {
    uint in_h, in_w;
    uint out_h, out_w;
    uint k_h, k_w;
    uint stride_h, stride_w;
    uint pad_h, pad_w;       // pads at the beginning; the end pads only shape out_h/out_w
    uint dil_h, dil_w;
};

#endif
