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
/* elementwise: the unary ops and predicates, one line each from their entries in
 * shaders/common/eltwise_ops.h (the dtypes of their eltwise_unary.comp variants) */
#define ELT_GPU_KERNEL(id, name, kind, fuse, code, gpu) ELT_GPU_KERNEL_##kind(name, gpu)
#define ELT_GPU_KERNEL_ELT_UNARY(name, gpu) ELT_GPU_KERNEL_##gpu(name)
#define ELT_GPU_KERNEL_ELT_PREDICATE(name, gpu) ELT_GPU_KERNEL_##gpu(name)
#define ELT_GPU_KERNEL_ELT_BINARY(name, gpu)
#define ELT_GPU_KERNEL_ELT_COMPARE(name, gpu)
#define ELT_GPU_KERNEL_ELT_VARIADIC(name, gpu)
#define ELT_GPU_KERNEL_ELT_SPECIAL(name, gpu)
#define ELT_GPU_KERNEL_ELT_INTERNAL(name, gpu)
#define ELT_GPU_KERNEL_GPU_NONE(name)
#define ELT_GPU_KERNEL_GPU_FL(name)                                                                \
    GPU_KERNEL(name, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16))
#define ELT_GPU_KERNEL_GPU_FL64(name) GPU_KERNEL(name, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
#define ELT_GPU_KERNEL_GPU_NUM(name) GPU_KERNEL(name, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
#define ELT_GPU_KERNEL_GPU_FL64_SINTS(name)                                                        \
    GPU_KERNEL(name, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS | DT_SINTS)
#define ELT_GPU_KERNEL_GPU_BOOL(name) GPU_KERNEL(name, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))
#define ELT_GPU_KERNEL_GPU_INTS(name) GPU_KERNEL(name, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
ELTWISE_OPS(ELT_GPU_KERNEL)
#undef ELT_GPU_KERNEL
/* elementwise: the others */
GPU_KERNEL(Add, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Clip, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Div, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Max, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Mean, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Min, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Mod, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Mul, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Pow, gpu_eltwise, gpu_eltwise_supports, DT(FLOAT) | DT(FLOAT16) | DT(INT32) | DT(INT64))
GPU_KERNEL(PRelu, gpu_eltwise, gpu_eltwise_supports,
           DT_FLOATS | DT(INT32) | DT(INT64) | DT(UINT32) | DT(UINT64))
GPU_KERNEL(Sub, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Sum, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
/* convolution */
GPU_KERNEL(Conv, gpu_conv, gpu_conv_supports, DT(FLOAT) | DT(FLOAT16))
/* pooling */
GPU_KERNEL(AveragePool, gpu_pool, gpu_pool_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(GlobalAveragePool, gpu_global_pool, gpu_pool_supports, DT_FLOATS)
GPU_KERNEL(GlobalMaxPool, gpu_global_pool, gpu_pool_supports, DT_FLOATS)
GPU_KERNEL(LpPool, gpu_pool, gpu_pool_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(MaxPool, gpu_pool, gpu_pool_supports, DT(FLOAT) | DT(FLOAT16) | DT(INT8) | DT(UINT8))
/* matrix products */
GPU_KERNEL(Gemm, gpu_gemm, gpu_gemm_supports,
           DT_FLOATS | DT(INT32) | DT(UINT32) | DT(INT64) | DT(UINT64))
GPU_KERNEL(MatMul, gpu_matmul, gpu_matmul_supports,
           DT_FLOATS | DT(INT32) | DT(UINT32) | DT(INT64) | DT(UINT64))
/* shape and copies */
GPU_KERNEL(Flatten, gpu_copy, gpu_copy_supports, DT_ALL)
GPU_KERNEL(Identity, gpu_copy, gpu_copy_supports, DT_ALL)
GPU_KERNEL(Reshape, gpu_copy, gpu_copy_supports, DT_ALL)
/* data movement and shapes (vulkan/ops_movement.c, vulkan/ops_gather.c) */
GPU_KERNEL(Concat, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(ConstantOfShape, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(DepthToSpace, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Expand, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(EyeLike, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Gather, gpu_index_op, gpu_index_supports, DT_ALL)
GPU_KERNEL(GatherElements, gpu_index_op, gpu_index_supports, DT_ALL)
GPU_KERNEL(GatherND, gpu_index_op, gpu_index_supports, DT_ALL)
GPU_KERNEL(Pad, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Scatter, gpu_index_op, gpu_index_supports, DT_ALL)
GPU_KERNEL(ScatterElements, gpu_index_op, gpu_index_supports, DT_ALL)
GPU_KERNEL(ScatterND, gpu_index_op, gpu_index_supports, DT_ALL)
GPU_KERNEL(Slice, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(SpaceToDepth, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Split, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Squeeze, gpu_copy, gpu_copy_supports, DT_ALL)
GPU_KERNEL(Tile, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Transpose, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Trilu, gpu_movement, gpu_movement_supports, DT_ALL)
GPU_KERNEL(Unsqueeze, gpu_copy, gpu_copy_supports, DT_ALL)

/* reductions and normalisation (vulkan/ops_reduce.c, vulkan/ops_norm.c) */
#define DT_GPU_REDUCE (DT(FLOAT) | DT(FLOAT16) | DT(INT32) | DT(INT64))
#define DT_GPU_NORM (DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(ArgMax, gpu_reduce, gpu_reduce_supports, DT_GPU_REDUCE)
GPU_KERNEL(ArgMin, gpu_reduce, gpu_reduce_supports, DT_GPU_REDUCE)
GPU_KERNEL(ReduceL1, gpu_reduce, gpu_reduce_supports, DT_GPU_NORM)
GPU_KERNEL(ReduceL2, gpu_reduce, gpu_reduce_supports, DT_GPU_NORM)
GPU_KERNEL(ReduceLogSum, gpu_reduce, gpu_reduce_supports, DT_GPU_NORM)
GPU_KERNEL(ReduceLogSumExp, gpu_reduce, gpu_reduce_supports, DT_GPU_NORM)
GPU_KERNEL(ReduceMax, gpu_reduce, gpu_reduce_supports, DT_GPU_REDUCE)
GPU_KERNEL(ReduceMean, gpu_reduce, gpu_reduce_supports, DT_GPU_NORM)
GPU_KERNEL(ReduceMin, gpu_reduce, gpu_reduce_supports, DT_GPU_REDUCE)
GPU_KERNEL(ReduceProd, gpu_reduce, gpu_reduce_supports, DT_GPU_REDUCE)
GPU_KERNEL(ReduceSum, gpu_reduce, gpu_reduce_supports, DT_GPU_REDUCE)
GPU_KERNEL(ReduceSumSquare, gpu_reduce, gpu_reduce_supports, DT_GPU_NORM)
GPU_KERNEL(TopK, gpu_topk, gpu_topk_supports,
           DT_FLOATS | DT(INT8) | DT(UINT8) | DT(INT32) | DT(UINT32) | DT(INT64) | DT(UINT64))
GPU_KERNEL(BatchNormalization, gpu_batchnorm, gpu_batchnorm_supports, DT_FLOATS)
GPU_KERNEL(GroupNormalization, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(Hardmax, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(InstanceNormalization, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(LayerNormalization, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(LogSoftmax, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(LpNormalization, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(MeanVarianceNormalization, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(RMSNormalization, gpu_norm, gpu_norm_supports, DT_GPU_NORM)
GPU_KERNEL(Softmax, gpu_norm, gpu_norm_supports, DT_GPU_NORM)

/* spatial: transposed conv, resize, sampling, detection (vulkan/ops_spatial.c, vulkan/ops_detect.c)
 */
GPU_KERNEL(ConvTranspose, gpu_convtranspose, gpu_convtranspose_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(GridSample, gpu_gridsample, gpu_gridsample_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(RoiAlign, gpu_roialign, gpu_roialign_supports, DT(FLOAT))
GPU_KERNEL(Resize, gpu_resize, gpu_resize_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(Upsample, gpu_resize, gpu_resize_supports, DT(FLOAT) | DT(FLOAT16))

/* quantization and integer products (vulkan/ops_quant.c, vulkan/ops_einsum.c) */
GPU_KERNEL(ConvInteger, gpu_qconv, gpu_qconv_supports, DT(INT8) | DT(UINT8))
GPU_KERNEL(Attention, gpu_attention, gpu_attention_supports, DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(FusedAttention, gpu_attention_fused, gpu_attention_fused_supports,
           DT(FLOAT) | DT(FLOAT16))
GPU_KERNEL(DequantizeLinear, gpu_quant, gpu_quant_supports,
           DT(INT8) | DT(UINT8) | DT(INT16) | DT(UINT16) | DT(INT32))
GPU_KERNEL(DynamicQuantizeLinear, gpu_dynamic_quant, gpu_dynamic_quant_supports, DT(FLOAT))
GPU_KERNEL(Einsum, gpu_einsum, gpu_einsum_supports,
           DT_FLOATS | DT(INT32) | DT(UINT32) | DT(INT64) | DT(UINT64))
GPU_KERNEL(MatMulInteger, gpu_qmatmul, gpu_qmatmul_supports, DT(INT8) | DT(UINT8))
GPU_KERNEL(QLinearConv, gpu_qconv, gpu_qconv_supports, DT(INT8) | DT(UINT8))
GPU_KERNEL(QLinearMatMul, gpu_qmatmul, gpu_qmatmul_supports, DT(INT8) | DT(UINT8))
GPU_KERNEL(QuantizeLinear, gpu_quant, gpu_quant_supports, DT(FLOAT) | DT(FLOAT16))

/* logic, comparison, cast and more elementwise (vulkan/ops_elementwise.c) */
GPU_KERNEL(And, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))
GPU_KERNEL(BitShift, gpu_eltwise, gpu_eltwise_supports, DT_UINTS)
GPU_KERNEL(BitwiseAnd, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
GPU_KERNEL(BitwiseOr, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
GPU_KERNEL(BitwiseXor, gpu_eltwise, gpu_eltwise_supports, DT_INTS)
GPU_KERNEL(Cast, gpu_eltwise, gpu_eltwise_supports, DT_ALL)
GPU_KERNEL(CastLike, gpu_eltwise, gpu_eltwise_supports, DT_ALL)
GPU_KERNEL(Dropout, gpu_eltwise, gpu_eltwise_supports, DT_FLOATS)
GPU_KERNEL(Equal, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC | DT(BOOL))
GPU_KERNEL(Greater, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(GreaterOrEqual, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Less, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(LessOrEqual, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC)
GPU_KERNEL(Or, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))
GPU_KERNEL(Where, gpu_eltwise, gpu_eltwise_supports, DT_NUMERIC | DT(BOOL))
GPU_KERNEL(Xor, gpu_eltwise, gpu_eltwise_supports, DT(BOOL))
/* planner-made groups of float elementwise ops (passes/fuse_eltwise.c) */
GPU_KERNEL(FusedElementwise, gpu_fused, gpu_fused_supports, DT(FLOAT))

/* vkml's own ops (vulkan/ops_preprocess.c) */
GPU_KERNEL(ImagePreprocess, gpu_image_preprocess, gpu_image_preprocess_supports,
           DT(FLOAT) | DT(FLOAT16) | DT(UINT8))
