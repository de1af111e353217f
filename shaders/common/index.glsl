// Shared by every 1-D-indexed kernel: the workgroup size and the flat invocation index.
// The host (lib/vulkan/vk_record.c, vk_rec_groups_1d) spreads large grids over x and y
// because maxComputeWorkGroupCount[0] may be as low as 65535.
#ifndef VKML_INDEX_GLSL
#define VKML_INDEX_GLSL

#define WG_SIZE 64
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

uint flat_index()
{
    return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WG_SIZE;
}

#endif
