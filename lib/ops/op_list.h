/*
 * THE op list. One line per ONNX op; everything about ops is generated from here.
 *   OP(name, domain, since, last, dtypes, flags, infer, cpu, gpu, gpu_supports)
 * gpu/gpu_supports are NULL for ops without a Vulkan kernel (they run on the CPU device).
 * Functions: infer in lib/ops/<family>.c, cpu in lib/cpu/<family>.c, gpu in
 * lib/vulkan/ops_<family>.c. Keep the list sorted by family, then name.
 */
/* elementwise (ops/elementwise.c, cpu/elementwise.c, vulkan/ops_elementwise.c) */
OP(Add, "", 1, 14, "float,double,int8,int16,int32,int64,uint8,uint16,uint32,uint64", 0, eltwise_binary_infer, cpu_eltwise_binary, gpu_eltwise_binary, gpu_eltwise_supports)
OP(Sub, "", 1, 14, "float,double,int8,int16,int32,int64,uint8,uint16,uint32,uint64", 0, eltwise_binary_infer, cpu_eltwise_binary, gpu_eltwise_binary, gpu_eltwise_supports)
OP(Mul, "", 1, 14, "float,double,int8,int16,int32,int64,uint8,uint16,uint32,uint64", 0, eltwise_binary_infer, cpu_eltwise_binary, gpu_eltwise_binary, gpu_eltwise_supports)
OP(Div, "", 1, 14, "float,double,int8,int16,int32,int64,uint8,uint16,uint32,uint64", 0, eltwise_binary_infer, cpu_eltwise_binary, gpu_eltwise_binary, gpu_eltwise_supports)
OP(Relu, "", 6, 14, "float", 0, eltwise_unary_infer, cpu_eltwise_unary, gpu_eltwise_unary, gpu_eltwise_supports)
OP(Sigmoid, "", 6, 13, "float", 0, eltwise_unary_infer, cpu_eltwise_unary, gpu_eltwise_unary, gpu_eltwise_supports)
OP(Tanh, "", 6, 13, "float", 0, eltwise_unary_infer, cpu_eltwise_unary, gpu_eltwise_unary, gpu_eltwise_supports)
/* convolution (ops/conv.c, cpu/conv.c, vulkan/ops_conv.c) */
OP(Conv, "", 1, 22, "float", 0, conv_infer, cpu_conv, gpu_conv, gpu_conv_supports)
/* pooling (ops/pool.c, cpu/pool.c, vulkan/ops_pool.c) */
OP(AveragePool, "", 1, 22, "float", 0, pool_infer, cpu_pool, gpu_pool, gpu_pool_supports)
OP(GlobalAveragePool, "", 1, 22, "float", 0, global_pool_infer, cpu_global_pool, gpu_global_pool, gpu_pool_supports)
OP(GlobalMaxPool, "", 1, 22, "float", 0, global_pool_infer, cpu_global_pool, gpu_global_pool, gpu_pool_supports)
OP(MaxPool, "", 1, 22, "float", 0, pool_infer, cpu_pool, gpu_pool, gpu_pool_supports)
/* matrix products (ops/matmul.c, cpu/matmul.c, vulkan/ops_matmul.c) */
OP(Gemm, "", 1, 13, "float", 0, gemm_infer, cpu_gemm, gpu_gemm, gpu_gemm_supports)
OP(MatMul, "", 1, 13, "float", 0, matmul_infer, cpu_matmul, gpu_matmul, gpu_matmul_supports)
/* normalisation (ops/softmax.c, cpu/softmax.c, vulkan/ops_softmax.c) */
OP(Softmax, "", 1, 13, "float", 0, softmax_infer, cpu_softmax, gpu_softmax, gpu_softmax_supports)
/* shape and copies (ops/shape.c, cpu/shape.c, vulkan/ops_shape.c) */
OP(Constant, "", 1, 21, "all", 0, constant_infer, cpu_constant, NULL, NULL)
OP(Flatten, "", 1, 21, "all", OP_ALIAS, flatten_infer, cpu_copy, gpu_copy, gpu_copy_supports)
OP(Identity, "", 1, 21, "all", OP_ALIAS, identity_infer, cpu_copy, gpu_copy, gpu_copy_supports)
OP(Reshape, "", 5, 21, "all", OP_ALIAS, reshape_infer, cpu_copy, gpu_copy, gpu_copy_supports)
