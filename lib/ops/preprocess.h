#pragma once
/*
 * com.vkml.ImagePreprocess: a video frame's bytes (uint8, rank 1) into an image input
 * (vkml_session_params.preprocess; see vkml.h for the order of operations). The params,
 * the geometry, and the per-element computation every device does the same way: the CPU
 * kernel (cpu/preprocess.c) and the shader (shaders/preprocess.comp) follow
 * preprocess_element operation for operation, in float.
 *
 * Batch: with batch N > 1 the frame input is uint8 [N, frame bytes rounded up to 4],
 * frame b at b * preprocess_input_bytes, and output image b is frame b's (batch 1 also
 * takes the rank-1 input).
 *
 * Attributes (a model may hold the node too): ints "frame" = format, width, height,
 * pixel_stride, r, g, b offsets, 3 plane offsets, 3 plane strides, frame_bytes, matrix,
 * full_range, resize, bgr[, sample_bits, sample_shift]; ints "output" = layout (0 NCHW, 1 NHWC),
 * channels, height, width, dtype[, batch (default 1)]; floats "values" = pad_value, scale, 3 means,
 * 3 stds.
 */
#include "graph/graph.h"

/* Most frames one ImagePreprocess node converts (the output's batch). */
#define PREPROCESS_MAX_BATCH 256

typedef enum preprocess_layout { PREPROCESS_NCHW = 0, PREPROCESS_NHWC = 1 } preprocess_layout;

typedef struct preprocess_params {
    vkml_preprocess frame; /* scale and std resolved (never 0) */
    preprocess_layout layout;
    int channels;      /* 1 or 3 */
    int height, width; /* of the image input */
    vkml_dtype dtype;  /* float, float16 or uint8 */
    int batch;         /* frames, 1 .. PREPROCESS_MAX_BATCH (0 is read as 1) */
    bool unbatched;    /* the image input has no batch dim: [C,H,W] or [H,W,C], one frame
                          (torchvision's detectors take such images) */
} preprocess_params;

/* What every device reads per element, from the params (preprocess_resolve). */
typedef struct preprocess_plan {
    float inv_scale_x, inv_scale_y;     /* frame pixels per input pixel */
    float offset_x, offset_y;           /* input x, y of the frame's left, top edge */
    int box_x0, box_x1, box_y0, box_y1; /* input pixels holding frame (the rest is pad) */
    float src_x, src_y;                 /* frame x, y of the source's left, top edge */
} preprocess_plan;

/* A node with a second input (vkml_preprocess.rect_input) reads its source rectangle,
 * int32 [PREPROCESS_RECT_INTS] x, y, width, height, at run time. */
#define PREPROCESS_RECT_INTS 4

/* A YUV format's chroma and samples, as every device reads them. */
typedef struct preprocess_yuv {
    bool semi_planar;      /* U, V interleaved in plane 1 (NV12, NV16) */
    uint32_t sub_x, sub_y; /* chroma subsampling: 1 = half the luma's samples */
    uint32_t sample_bits;  /* 8 .. 16 */
    uint32_t sample_bytes; /* 1, or 2 for samples of more than 8 bits */
    uint32_t sample_shift; /* the sample's lowest bit in its word */
    uint32_t sample_mask;  /* 2^bits - 1 */
    float sample_scale;    /* raw sample -> 8-bit units: 255 / (2^bits - 1) in full
                              range, 2^(8 - bits) in limited range (1 at 8 bits) */
    float chroma_zero;     /* raw value of zero chroma, 2^(bits - 1) */
} preprocess_yuv;

/* The YUV layout of `f`; false for the RGB and gray formats. */
bool preprocess_yuv_layout(const vkml_preprocess *f, preprocess_yuv *out);

/* Resolves defaults (scale 0, std 0) and checks everything: sizes, planes within
 * frame_bytes, offsets within a pixel, finite values, output shape and dtype.
 * INVALID_ARGUMENT naming the field. */
vkml_status preprocess_check(preprocess_params *p, vkml_error *err);
void preprocess_resolve(const preprocess_params *p, preprocess_plan *plan);
/* The plan for the source rectangle `rect` (x, y, w, h; clamped to the frame), in float
 * arithmetic, as shaders/preprocess.comp (RECT) computes it per invocation. */
void preprocess_resolve_rect(const preprocess_params *p, const int32_t rect[4],
                             preprocess_plan *plan);
/* Output dims (rank 4) of the params. */
void preprocess_output_dims(const preprocess_params *p, int64_t dims[4]);

/* Whether `x` is a frame input the params read: uint8 [n >= frame_bytes] for batch 1,
 * or [batch, frame bytes rounded up to 4]. */
bool preprocess_frame_input_fits(const preprocess_params *p, const graph_value *x);
/* Bytes of one frame of the frame input: frame_bytes rounded up to 4 (the shader reads
 * words). */
uint64_t preprocess_input_bytes(const vkml_preprocess *f);
