// Sliding-window helpers shared by conv_window.comp and pool.comp.
#ifndef VKML_WINDOW_GLSL
#define VKML_WINDOW_GLSL

// Kernel taps [lo, hi) of one dimension whose position start + t * dil lies in
// [floor_, limit): the part of the window inside the input (or the padded input), so the
// work is bounded by the input, not by a kernel that is mostly padding.
void window_taps(int start, uint dil, uint k, int floor_, int limit, out uint lo, out uint hi)
{
    if (dil == 1u) { // nearly every conv and pool: no division (a uniform branch)
        int h1 = clamp(limit - start, 0, int(k));
        lo = uint(clamp(floor_ - start, 0, h1));
        hi = uint(h1);
        return;
    }
    int d = int(dil);
    int l = start >= floor_ ? 0 : (floor_ - start + d - 1) / d;
    int h = start >= limit ? 0 : (limit - 1 - start) / d + 1;
    h = min(h, int(k));
    lo = uint(min(l, h));
    hi = uint(h);
}

#endif
