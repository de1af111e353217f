#pragma once
/*
 * Detection ops: NonMaxSuppression (opsets 10-11) and RoiAlign (10-22).
 *
 * NonMaxSuppression's output count depends on the data (OP_DATA_DEPENDENT): its shape
 * function gives the bound, the CPU kernel the count it selected.
 */
#include "graph/graph.h"

typedef struct nms_params {
    bool center_point_box; /* boxes are [x_center, y_center, w, h], else [y1, x1, y2, x2] */
} nms_params;

/* The inputs of one NonMaxSuppression run (host memory). */
typedef struct nms_inputs {
    const float *boxes;  /* [batches, boxes, 4] */
    const float *scores; /* [batches, classes, boxes] */
    int64_t batches, classes, boxes_per_batch;
    int64_t max_per_class;
    float iou_threshold, score_threshold;
    bool has_score_threshold;
} nms_inputs;

/* Reads the inputs' shapes and the data of a kernel's inputs `data`. */
vkml_status nms_read_inputs(const graph_value *values, const graph_node *node,
                            const void *const *data, nms_inputs *in, vkml_error *err);
/* Runs the selection: writes up to `max` [batch, class, box] triples to out (NULL: count
 * only); returns the number selected, or -1 when out of memory. */
int64_t nms_select(const nms_params *p, const nms_inputs *in, int64_t *out, int64_t max);

typedef struct roialign_params {
    bool is_max;          /* mode 'max', else 'avg' */
    bool half_pixel;      /* coordinate_transformation_mode (opset 16: half_pixel default) */
    int64_t out_h, out_w; /* output_height, output_width */
    int64_t sampling_ratio;
    float spatial_scale;
} roialign_params;

/* Most bilinear samples RoiAlign takes for one output bin: a larger adaptive grid (huge
 * rois) fails at run time instead of looping on attacker-sized data. */
#define ROIALIGN_MAX_SAMPLES ((int64_t)1 << 16)

/* Most samples a RoiAlign node with a fixed grid takes on a GPU (output elements x
 * sampling_ratio^2): roialign.comp visits every one, where the CPU kernel visits a bin's
 * pixel rows and columns once, so a denser node runs there. */
#define ROIALIGN_GPU_MAX_SAMPLES ((int64_t)1 << 30)
