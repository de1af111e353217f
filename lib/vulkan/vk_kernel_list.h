/*
 * The Vulkan devices' kernel registry: one line per op a Vulkan device runs.
 *   GPU_KERNEL(op, record, supports, dtypes)
 * op is a name from lib/ops/op_list.h; record (VKML_GPU_DECL) turns a node into dispatches
 * and supports (VKML_GPU_SUPPORTS_DECL) answers for the node's attributes and shapes, both
 * in lib/vulkan/ops_<family>.c (gpu_supports_any when the dtype and size checks are all);
 * dtypes is the DT() mask of node types (lib/ops/op.h) the kernels are built for. The
 * device also needs the dtype's shader features (vk_dtype_supported). Ops missing here run
 * on the CPU device inside a GPU session.
 */
/* elementwise */
GPU_KERNEL(Abs, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Acos, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Acosh, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Add, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Asin, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Asinh, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Atan, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Atanh, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Ceil, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Celu, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Clip, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Cos, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Cosh, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Div, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Elu, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Erf, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Exp, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Floor, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Gelu, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(HardSigmoid, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(HardSwish, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(LeakyRelu, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Log, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Max, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Mean, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Min, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Mish, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Mod, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Mul, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Neg, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS | DT_SINTS)
GPU_KERNEL(Pow, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16) | DT(INT32) | DT(INT64))
GPU_KERNEL(PRelu, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS | DT(INT32) | DT(INT64) | DT(UINT32) | DT(UINT64))
GPU_KERNEL(Reciprocal, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Relu, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS | DT_SINTS)
GPU_KERNEL(Round, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Selu, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Sigmoid, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Sign, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Sin, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Sinh, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Softplus, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Softsign, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Sqrt, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Sub, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Sum, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Tan, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Tanh, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(ThresholdedRelu, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
/* convolution */
GPU_KERNEL(Conv, gpu_conv, gpu_conv_supports, DT(FLOAT))
/* pooling */
GPU_KERNEL(AveragePool, gpu_pool, gpu_pool_supports, DT(FLOAT))
GPU_KERNEL(GlobalAveragePool, gpu_global_pool, gpu_pool_supports, DT(FLOAT))
GPU_KERNEL(GlobalMaxPool, gpu_global_pool, gpu_pool_supports, DT(FLOAT))
GPU_KERNEL(MaxPool, gpu_pool, gpu_pool_supports, DT(FLOAT))
/* matrix products */
GPU_KERNEL(Gemm, gpu_gemm, gpu_gemm_supports, DT(FLOAT))
GPU_KERNEL(MatMul, gpu_matmul, gpu_matmul_supports, DT(FLOAT))
/* normalisation */
GPU_KERNEL(Softmax, gpu_softmax, gpu_softmax_supports, DT(FLOAT))
/* shape and copies */
GPU_KERNEL(Flatten, gpu_copy, gpu_copy_supports, DT_ALL)
GPU_KERNEL(Identity, gpu_copy, gpu_copy_supports, DT_ALL)
GPU_KERNEL(Reshape, gpu_copy, gpu_copy_supports, DT_ALL)
/* data movement and shapes (vulkan/ops_movement.c, vulkan/ops_gather.c) */

/* reductions and normalisation (vulkan/ops_reduce.c, vulkan/ops_norm.c) */

/* spatial: transposed conv, resize, sampling, detection (vulkan/ops_spatial.c, vulkan/ops_detect.c) */

/* quantization and integer products (vulkan/ops_quant.c, vulkan/ops_einsum.c) */

/* logic, comparison, cast and more elementwise (vulkan/ops_elementwise.c) */
GPU_KERNEL(And, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))
GPU_KERNEL(BitShift, gpu_eltwise, gpu_eltwise_supports, DT_UINTS)
GPU_KERNEL(BitwiseAnd, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
GPU_KERNEL(BitwiseNot, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
GPU_KERNEL(BitwiseOr, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
GPU_KERNEL(BitwiseXor, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
GPU_KERNEL(Cast, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC | DT(BOOL))
GPU_KERNEL(CastLike, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC | DT(BOOL))
GPU_KERNEL(Dropout, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Equal, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC | DT(BOOL))
GPU_KERNEL(Greater, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(GreaterOrEqual, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(IsInf, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(IsNaN, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Less, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(LessOrEqual, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Not, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))
GPU_KERNEL(Or, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))
GPU_KERNEL(Where, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC | DT(BOOL))
GPU_KERNEL(Xor, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))

