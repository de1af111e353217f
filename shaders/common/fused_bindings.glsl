// What every fused elementwise kernel binds (lib/vulkan/ops_fused.c): the program at 0, the
// group's two non-constant operands at 1 and 2, the output at 3, a copy_push (the element
// count); and the op formulas (fused_apply.glsl). Shared by the interpreter
// (fused_eltwise.comp) and the shaders generated per group (lib/vulkan/vk_fused_gen.c).
#ifndef VKML_FUSED_BINDINGS_GLSL
#define VKML_FUSED_BINDINGS_GLSL
#define PUSH_COPY
#include "buffers.glsl"
#include "push.h"
#include "fused_apply.glsl"
#include "index.glsl"

layout(std430, set = 0, binding = 0) readonly buffer prog_buf { uint prog[]; };
DECLARE_IN(1, in0)
DECLARE_IN(2, in1)
DECLARE_OUT(3, y)

#endif
