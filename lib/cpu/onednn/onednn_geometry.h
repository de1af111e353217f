#pragma once
/* Window geometry (ops/window.h) in oneDNN's terms, shared by the convolution and the
 * pools. */
#include "ops/window.h"

#include <oneapi/dnnl/dnnl.h>

/* Strides, dilations (oneDNN counts the gaps: ONNX's minus 1) and pads of w. The end pads
 * are those oneDNN's output formula ((in + pads - extent) / stride + 1, rounded down)
 * gives w->out with: ceil_mode's windows that reach past the end pads extend them.
 * *extended: they did. */
static inline void onednn_window(const window_params *w, dnnl_dims_t strides, dnnl_dims_t dilates,
                                 dnnl_dims_t pad_l, dnnl_dims_t pad_r, bool *extended)
{
    *extended = false;
    for (int d = 0; d < w->spatial; d++) {
        int64_t extent = (w->kernel[d] - 1) * w->dilations[d] + 1;
        int64_t need = (w->out[d] - 1) * w->strides[d] + extent - w->in[d] - w->pads_begin[d];
        strides[d] = w->strides[d];
        dilates[d] = w->dilations[d] - 1;
        pad_l[d] = w->pads_begin[d];
        pad_r[d] = w->pads_end[d];
        if ((w->in[d] + w->pads_begin[d] + w->pads_end[d] - extent) / w->strides[d] + 1 !=
            w->out[d]) {
            pad_r[d] = need;
            *extended = true;
        }
    }
}
