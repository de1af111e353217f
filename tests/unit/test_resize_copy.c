/* resize_as_strided (lib/ops/resize.c): which nearest Resizes are strided copies, and that
 * a copy it describes reads, for every output element, the input element the per-axis
 * taps (resize_axis_taps, what every device's Resize kernel computes) name. */
#include "ops/resize.h"
#include "testutil.h"

/* Resize of a dense input `in` by scales (sizes when scales is NULL) under mode/coord/
 * nearest: whether it is a copy; when it is, every output element checked. */
static bool check_case(const char *what, resize_mode mode, resize_coord coord,
                       resize_nearest nearest, int rank, const int64_t *in, const float *scales,
                       const int64_t *sizes)
{
    resize_params p = {.mode = mode,
                       .coord = coord,
                       .nearest = nearest,
                       .cubic_a = -0.75f,
                       .roi_input = -1,
                       .scales_input = -1,
                       .sizes_input = -1};
    resize_inputs ri = {0};
    for (int d = 0; d < rank; d++) {
        if (scales)
            ri.scales[ri.n_scales++] = scales[d];
        else
            ri.sizes[ri.n_sizes++] = sizes[d];
    }
    resize_geometry g;
    vkml_error err = {0};
    CHECK_OK(resize_resolve(&p, rank, in, &ri, &g, &err), &err);
    mv_step s;
    if (!resize_as_strided(&p, &g, &s))
        return false;
    CHECK(s.kind == MV_STRIDED && s.rank >= 1 && s.rank <= VKML_MAX_RANK, "%s: step of rank %d",
          what, s.rank);
    int64_t count = vkml_tensor_element_count(g.rank, g.out), in_strides[VKML_MAX_RANK], st = 1;
    for (int d = g.rank - 1; d >= 0; d--) {
        in_strides[d] = st;
        st *= g.in[d];
    }
    int bad = 0;
    for (int64_t i = 0; i < count && bad < 5; i++) {
        /* the step's source and destination of its i-th element (its domain in order) */
        int64_t rem = i, src = s.src_offset, dst = s.dst_offset;
        for (int d = s.rank - 1; d >= 0; d--) {
            src += (rem % s.dims[d]) * s.src_strides[d];
            dst += (rem % s.dims[d]) * s.dst_strides[d];
            rem /= s.dims[d];
        }
        /* the taps' answer for output dst */
        int64_t want = 0;
        rem = dst;
        for (int d = g.rank - 1; d >= 0; d--) {
            int64_t idx[RESIZE_MAX_TAPS];
            double w[RESIZE_MAX_TAPS];
            int n = resize_axis_taps(&p, &g, d, rem % g.out[d], idx, w);
            want += (n > 0 ? idx[0] : -1) * in_strides[d];
            rem /= g.out[d];
        }
        if (src != want) {
            bad++;
            CHECK(false, "%s: output %lld reads input %lld, the taps say %lld", what,
                  (long long)dst, (long long)src, (long long)want);
        }
    }
    return true;
}

int main(void)
{
    const int64_t nchw[] = {2, 3, 5, 7};
    const float up2[] = {1, 1, 2, 2}, up23[] = {1, 1, 2, 3}, down[] = {1, 1, 0.5f, 1},
                up15[] = {1, 1, 1.5f, 2};
    /* the exporters' 2x nearest Upsample (PyTorch: asymmetric + floor at opset 11+, older
     * exports half_pixel + round_prefer_floor) and other whole factors */
    CHECK(check_case("half_pixel 2x", RESIZE_NEAREST, RESIZE_HALF_PIXEL, RESIZE_ROUND_PREFER_FLOOR,
                     4, nchw, up2, NULL),
          "half_pixel round_prefer_floor 2x is not a copy");
    CHECK(check_case("asymmetric 2x3", RESIZE_NEAREST, RESIZE_ASYMMETRIC, RESIZE_FLOOR, 4, nchw,
                     up23, NULL),
          "asymmetric floor 2x3 is not a copy");
    CHECK(check_case("pytorch_half_pixel 2x", RESIZE_NEAREST, RESIZE_PYTORCH_HALF_PIXEL,
                     RESIZE_ROUND_PREFER_FLOOR, 4, nchw, up2, NULL),
          "pytorch_half_pixel 2x is not a copy");
    CHECK(check_case("half_pixel 0.5x", RESIZE_NEAREST, RESIZE_HALF_PIXEL,
                     RESIZE_ROUND_PREFER_FLOOR, 4, (int64_t[]){1, 2, 8, 6}, down, NULL),
          "half_pixel 0.5x (every second row) is not a copy");
    CHECK(check_case("sizes 1x1", RESIZE_NEAREST, RESIZE_ASYMMETRIC, RESIZE_FLOOR, 4, nchw, NULL,
                     (int64_t[]){2, 3, 1, 1}),
          "a resize to one pixel is not a copy");
    /* not copies: a factor of 1.5, interpolation */
    CHECK(!check_case("asymmetric 1.5x", RESIZE_NEAREST, RESIZE_ASYMMETRIC, RESIZE_FLOOR, 4, nchw,
                      up15, NULL),
          "a 1.5x resize taken for a copy");
    CHECK(!check_case("linear 2x", RESIZE_LINEAR, RESIZE_HALF_PIXEL, RESIZE_ROUND_PREFER_FLOOR, 4,
                      nchw, up2, NULL),
          "a linear resize taken for a copy");
    /* whatever the answer, a copy must read what the taps say (checked inside) */
    check_case("align_corners 2x", RESIZE_NEAREST, RESIZE_ALIGN_CORNERS, RESIZE_ROUND_PREFER_CEIL,
               4, nchw, up2, NULL);
    check_case("ceil 3x", RESIZE_NEAREST, RESIZE_HALF_PIXEL, RESIZE_CEIL, 4, nchw,
               (const float[]){1, 3, 3, 1}, NULL);
    return test_finish("resize as strided copies");
}
