/* TEMPORARY stubs so the tree links while the op families are written. The Vulkan owner deletes
 * the lines of the functions it implements; this file goes away when empty. */
#include "ops/op_decls.h"

#define INFER_STUB(fn) vkml_status fn(graph_value *v, const graph_node *n, vkml_error *e) \
    { (void)v; return vkml_fail(e, VKML_ERROR_UNSUPPORTED, "%s: not implemented yet", n->op_type); }
#define CPU_STUB(fn) vkml_status fn(const op_cpu_args *a, vkml_error *e) \
    { return vkml_fail(e, VKML_ERROR_UNSUPPORTED, "%s: no CPU kernel yet", a->node->op_type); }
#define GPU_STUB(fn) VKML_GPU_DECL(fn) { (void)rec; (void)values; \
    return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: no GPU kernel yet", node->op_type); }
#define GPU_SUPPORTS_STUB(fn) VKML_GPU_SUPPORTS_DECL(fn) { (void)values; (void)node; (void)caps; \
    if (why_size) snprintf(why, why_size, "not implemented yet"); return false; }

#include <stdio.h>

/* vulkan: */
GPU_STUB(gpu_eltwise_binary) GPU_STUB(gpu_eltwise_unary) GPU_SUPPORTS_STUB(gpu_eltwise_supports)
GPU_STUB(gpu_conv) GPU_SUPPORTS_STUB(gpu_conv_supports) GPU_STUB(gpu_pool) GPU_STUB(gpu_global_pool)
GPU_SUPPORTS_STUB(gpu_pool_supports) GPU_STUB(gpu_gemm) GPU_SUPPORTS_STUB(gpu_gemm_supports)
GPU_STUB(gpu_matmul) GPU_SUPPORTS_STUB(gpu_matmul_supports) GPU_STUB(gpu_softmax)
GPU_SUPPORTS_STUB(gpu_softmax_supports) GPU_STUB(gpu_copy) GPU_SUPPORTS_STUB(gpu_copy_supports)
