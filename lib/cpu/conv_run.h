#pragma once
/* The convolution core of cpu/conv.c, shared with the integer convolutions (cpu/quant.c). */
#include "ops/conv.h"

/* Y = conv(X, W) without bias, per conv_params; dtype FLOAT or INT32 (x, w, y all of it;
 * int32 products wrap). */
vkml_status cpu_conv_run(const conv_params *p, vkml_dtype dtype, const void *x, const void *w,
                         void *y, vkml_error *err);
