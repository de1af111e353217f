// Tensor rank handled by the strided kernels (matches VKML_MAX_RANK).
#ifndef VKML_RANK_GLSL
#define VKML_RANK_GLSL
#define MAX_RANK 8
#endif
