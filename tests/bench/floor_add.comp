#version 450
// bench_floor's trivial dependent kernel: dst[i] = src[i] + 1 (the chained Add's work
// without vkml around it); -D THIRD=1: dst[i] = src[i] + c[0], c a third buffer (as vkml's
// Add read its constant); -D THIRD=2: dst[i] = src[i] + c[i] (a dense binary op's two reads).
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { float src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { float dst[]; };
#if THIRD != 0
layout(std430, set = 0, binding = 2) readonly buffer C { float c[]; };
#endif
layout(push_constant) uniform Push { uint n; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n)
#if THIRD == 2
        dst[i] = src[i] + c[i];
#elif THIRD
        dst[i] = src[i] + c[0];
#else
        dst[i] = src[i] + 1.0;
#endif
}
