/* TEMPORARY stubs so the tree links while the op families are written. Each owner deletes
 * the lines of the functions it implements; this file goes away when empty. */
#include "ops/op_decls.h"

#define vkml_status fn(graph_value *v, const graph_node *n, vkml_error *e) \
    { (void)v; return vkml_fail(e, VKML_ERROR_UNSUPPORTED, "%s: not implemented yet", n->op_type); }
#define CPU_STUB(fn) vkml_status fn(const op_cpu_args *a, vkml_error *e) \
    { return vkml_fail(e, VKML_ERROR_UNSUPPORTED, "%s: no CPU kernel yet", a->node->op_type); }
#define GPU_STUB(fn) VKML_GPU_DECL(fn) { (void)rec; (void)values; \
    return vkml_fail(err, VKML_ERROR_UNSUPPORTED, "%s: no GPU kernel yet", node->op_type); }
#define GPU_SUPPORTS_STUB(fn) VKML_GPU_SUPPORTS_DECL(fn) { (void)values; (void)node; (void)caps; \
    if (why_size) snprintf(why, why_size, "not implemented yet"); return false; }

#include <stdio.h>

/* ops: */
CPU_STUB(cpu_eltwise_binary) CPU_STUB(cpu_eltwise_unary) CPU_STUB(cpu_conv) CPU_STUB(cpu_pool)
CPU_STUB(cpu_global_pool) CPU_STUB(cpu_gemm) CPU_STUB(cpu_matmul) CPU_STUB(cpu_softmax)
CPU_STUB(cpu_constant) CPU_STUB(cpu_copy)
