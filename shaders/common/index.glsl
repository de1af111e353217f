// Shared by every 1-D-indexed kernel: the workgroup size and the flat invocation index.
// The host (lib/vulkan/vk_record.c, vk_rec_groups_1d) spreads large grids over x and y
// because maxComputeWorkGroupCount[0] may be as low as 65535.
#ifndef VKML_INDEX_GLSL
#define VKML_INDEX_GLSL

#ifndef WG_SIZE // a kernel may take more (conv_window.comp's POOL form: 256)
#define WG_SIZE 64
#endif
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

uint flat_index()
{
    return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WG_SIZE;
}

// Dense elementwise kernels (eltwise_unary.comp, cast.comp) take DENSE_ELEMS elements per
// invocation, strided by the grid so that every load of a subgroup stays coalesced, all
// loads issued before the stores: an SM holds at most 2,048 invocations, and at one 4-byte
// load each that is too few bytes in flight to cover the memory latency (a 1M-float Neg ran
// at 0.8 TB/s on the H200). The host dispatches ceil(count / DENSE_ELEMS) invocations
// (lib/vulkan/ops_elementwise.c, VK_DENSE_ELEMS).
#define DENSE_ELEMS 4u

// The stride between an invocation's elements: the grid's invocations.
uint dense_stride(uint count)
{
    return count / DENSE_ELEMS + (count % DENSE_ELEMS != 0u ? 1u : 0u); // cannot wrap
}

#endif
