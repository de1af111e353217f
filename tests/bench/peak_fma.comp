#version 450
// bench_ceiling.c's fp32 FMA ceiling: each invocation runs CHAINS independent vec4 chains
// a = fma(a, b, c), UNROLL steps a loop turn, pc.turns turns, then stores the sum of its
// chains (nothing is dead). b and c are push constants and the chains start apart
// (a = 0, 1 ... 4 x CHAINS - 1), so nothing folds or merges; the host checks the sum.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) writeonly buffer Result { float result[]; };
layout(push_constant) uniform Push { float b; float c; uint turns; } pc;

#define CHAINS 8
#define UNROLL 16

void main()
{
    vec4 a[CHAINS];
    [[unroll]] for (int j = 0; j < CHAINS; j++)
        a[j] = vec4(4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3);
    for (uint t = 0; t < pc.turns; t++) {
        [[unroll]] for (int u = 0; u < UNROLL; u++) {
            [[unroll]] for (int j = 0; j < CHAINS; j++)
                a[j] = fma(a[j], vec4(pc.b), vec4(pc.c));
        }
    }
    vec4 sum = vec4(0.0);
    [[unroll]] for (int j = 0; j < CHAINS; j++)
        sum += a[j];
    result[gl_GlobalInvocationID.x] = sum.x + sum.y + sum.z + sum.w;
}
