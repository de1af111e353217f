/* One line per Vulkan lowering named in op_list.h (kept by hand: C cannot skip NULL
 * entries in an X-macro; a missing line is a compile error, a stale one a link error). */
VKML_GPU_DECL(gpu_eltwise_binary);
VKML_GPU_DECL(gpu_eltwise_unary);
VKML_GPU_SUPPORTS_DECL(gpu_eltwise_supports);
VKML_GPU_DECL(gpu_conv);
VKML_GPU_SUPPORTS_DECL(gpu_conv_supports);
VKML_GPU_DECL(gpu_pool);
VKML_GPU_DECL(gpu_global_pool);
VKML_GPU_SUPPORTS_DECL(gpu_pool_supports);
VKML_GPU_DECL(gpu_gemm);
VKML_GPU_SUPPORTS_DECL(gpu_gemm_supports);
VKML_GPU_DECL(gpu_matmul);
VKML_GPU_SUPPORTS_DECL(gpu_matmul_supports);
VKML_GPU_DECL(gpu_softmax);
VKML_GPU_SUPPORTS_DECL(gpu_softmax_supports);
VKML_GPU_DECL(gpu_copy);
VKML_GPU_SUPPORTS_DECL(gpu_copy_supports);
