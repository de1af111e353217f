#version 450
// bench_ceiling.c's memory bandwidth: pc.count vec4s of src, each invocation striding over
// the grid. READ_ONLY=0 copies them to dst; READ_ONLY=1 sums them and stores one vec4 per
// invocation (dst[invocation]), so that the reads are not dead.
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#if READ_ONLY
    vec4 sum = vec4(0.0);
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride)
        sum += src[i];
    dst[gl_GlobalInvocationID.x] = sum;
#else
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride)
        dst[i] = src[i];
#endif
}
