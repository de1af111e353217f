/*
 * The CPU device's kernel registry: one line per op it runs.
 *   CPU_KERNEL(op, fn, dtypes)
 * op is a name from lib/ops/op_list.h; fn(const op_cpu_args *, vkml_error *) lives in
 * lib/cpu/<family>.c; dtypes is the mask (DT(...) bits, lib/ops/op.h) of the node types
 * it takes (input 0's dtype, or output 0's for OP_TYPE_FROM_OUTPUT ops). The CPU kernels
 * are the reference every other device is tested against: every op should have one.
 */
/* elementwise */
CPU_KERNEL(Add, cpu_eltwise_binary, DT(FLOAT) | DT(DOUBLE) | DT_INTS)
CPU_KERNEL(Sub, cpu_eltwise_binary, DT(FLOAT) | DT(DOUBLE) | DT_INTS)
CPU_KERNEL(Mul, cpu_eltwise_binary, DT(FLOAT) | DT(DOUBLE) | DT_INTS)
CPU_KERNEL(Div, cpu_eltwise_binary, DT(FLOAT) | DT(DOUBLE) | DT_INTS)
CPU_KERNEL(Relu, cpu_eltwise_unary, DT(FLOAT))
CPU_KERNEL(Sigmoid, cpu_eltwise_unary, DT(FLOAT))
CPU_KERNEL(Tanh, cpu_eltwise_unary, DT(FLOAT))
/* convolution */
CPU_KERNEL(Conv, cpu_conv, DT_FLOATS)
/* pooling */
CPU_KERNEL(AveragePool, cpu_pool, DT_FLOATS)
CPU_KERNEL(GlobalAveragePool, cpu_global_pool, DT(FLOAT))
CPU_KERNEL(GlobalMaxPool, cpu_global_pool, DT(FLOAT))
CPU_KERNEL(LpPool, cpu_pool, DT_FLOATS)
CPU_KERNEL(MaxPool, cpu_pool, DT_FLOATS | DT(INT8) | DT(UINT8))
CPU_KERNEL(MaxUnpool, cpu_maxunpool, DT_FLOATS)
/* matrix products */
CPU_KERNEL(Gemm, cpu_gemm, DT_FLOATS | DT(BFLOAT16) | DT(INT32) | DT(INT64) | DT(UINT32) | DT(UINT64))
CPU_KERNEL(MatMul, cpu_matmul, DT_FLOATS | DT(BFLOAT16) | DT(INT32) | DT(INT64) | DT(UINT32) | DT(UINT64))
/* shape and copies */
CPU_KERNEL(Constant, cpu_constant, DT_ALL)
CPU_KERNEL(Flatten, cpu_copy, DT_ALL)
CPU_KERNEL(Identity, cpu_copy, DT_ALL)
CPU_KERNEL(Reshape, cpu_copy, DT_ALL)
/* data movement and shapes (cpu/movement.c, cpu/generate.c, cpu/gather.c) */
CPU_KERNEL(Compress, cpu_compress, DT_ALL)
CPU_KERNEL(Concat, cpu_movement, DT_ALL)
CPU_KERNEL(ConstantOfShape, cpu_movement, DT_ALL)
CPU_KERNEL(DepthToSpace, cpu_movement, DT_ALL)
CPU_KERNEL(Expand, cpu_movement, DT_ALL)
CPU_KERNEL(EyeLike, cpu_movement, DT_ALL)
CPU_KERNEL(Gather, cpu_index_op, DT_ALL)
CPU_KERNEL(GatherElements, cpu_index_op, DT_ALL)
CPU_KERNEL(GatherND, cpu_index_op, DT_ALL)
CPU_KERNEL(NonZero, cpu_nonzero, DT_ALL)
CPU_KERNEL(OneHot, cpu_onehot, DT_ALL)
CPU_KERNEL(Pad, cpu_movement, DT_ALL)
CPU_KERNEL(Range, cpu_range, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Scatter, cpu_index_op, DT_ALL)
CPU_KERNEL(ScatterElements, cpu_index_op, DT_ALL)
CPU_KERNEL(ScatterND, cpu_index_op, DT_ALL)
CPU_KERNEL(Shape, cpu_shape, DT_ALL)
CPU_KERNEL(Size, cpu_size, DT_ALL)
CPU_KERNEL(Slice, cpu_movement, DT_ALL)
CPU_KERNEL(SpaceToDepth, cpu_movement, DT_ALL)
CPU_KERNEL(Split, cpu_movement, DT_ALL)
CPU_KERNEL(Squeeze, cpu_copy, DT_ALL)
CPU_KERNEL(Tile, cpu_movement, DT_ALL)
CPU_KERNEL(Transpose, cpu_movement, DT_ALL)
CPU_KERNEL(Trilu, cpu_movement, DT_ALL)
CPU_KERNEL(Unsqueeze, cpu_copy, DT_ALL)

/* reductions and normalisation (cpu/reduce.c, cpu/norm.c) */
#define DT_REDUCE (DT_FLOATS | DT(INT32) | DT(INT64) | DT(UINT32))
#define DT_REDUCE_ORDERED (DT_FLOATS | DT_SINTS | DT(UINT8) | DT(UINT16) | DT(UINT32))
CPU_KERNEL(ArgMax, cpu_reduce, DT_REDUCE_ORDERED)
CPU_KERNEL(ArgMin, cpu_reduce, DT_REDUCE_ORDERED)
CPU_KERNEL(CumSum, cpu_cumsum, DT_REDUCE | DT(UINT64))
CPU_KERNEL(ReduceL1, cpu_reduce, DT_REDUCE)
CPU_KERNEL(ReduceL2, cpu_reduce, DT_REDUCE)
CPU_KERNEL(ReduceLogSum, cpu_reduce, DT_REDUCE)
CPU_KERNEL(ReduceLogSumExp, cpu_reduce, DT_REDUCE)
CPU_KERNEL(ReduceMax, cpu_reduce, DT_REDUCE_ORDERED | DT(BOOL))
CPU_KERNEL(ReduceMean, cpu_reduce, DT_REDUCE)
CPU_KERNEL(ReduceMin, cpu_reduce, DT_REDUCE_ORDERED | DT(BOOL))
CPU_KERNEL(ReduceProd, cpu_reduce, DT_REDUCE)
CPU_KERNEL(ReduceSum, cpu_reduce, DT_REDUCE)
CPU_KERNEL(ReduceSumSquare, cpu_reduce, DT_REDUCE)
CPU_KERNEL(TopK, cpu_topk, DT_REDUCE_ORDERED)
CPU_KERNEL(BatchNormalization, cpu_batchnorm, DT_FLOATS)
CPU_KERNEL(GroupNormalization, cpu_norm, DT_FLOATS)
CPU_KERNEL(Hardmax, cpu_norm, DT_FLOATS)
CPU_KERNEL(InstanceNormalization, cpu_norm, DT_FLOATS)
CPU_KERNEL(LRN, cpu_lrn, DT_FLOATS)
CPU_KERNEL(LayerNormalization, cpu_norm, DT_FLOATS)
CPU_KERNEL(LogSoftmax, cpu_norm, DT_FLOATS)
CPU_KERNEL(LpNormalization, cpu_norm, DT_FLOATS)
CPU_KERNEL(MeanVarianceNormalization, cpu_norm, DT_FLOATS)
CPU_KERNEL(Softmax, cpu_norm, DT_FLOATS)

/* spatial: transposed conv, resize, sampling, detection (cpu/spatial.c, cpu/detect.c) */
CPU_KERNEL(ConvTranspose, cpu_convtranspose, DT_FLOATS)
CPU_KERNEL(GridSample, cpu_gridsample, DT_FLOATS)
CPU_KERNEL(NonMaxSuppression, cpu_nms, DT(FLOAT))
CPU_KERNEL(Resize, cpu_resize, DT_FLOATS | DT(INT8) | DT(UINT8) | DT(INT32) | DT(INT64))
CPU_KERNEL(RoiAlign, cpu_roialign, DT(FLOAT))
CPU_KERNEL(Upsample, cpu_resize, DT_FLOATS | DT(INT8) | DT(UINT8) | DT(INT32) | DT(INT64))

/* quantization and integer products (cpu/quant.c, cpu/einsum.c) */
CPU_KERNEL(Attention, cpu_attention, DT(FLOAT) | DT(FLOAT16) | DT(BFLOAT16))
CPU_KERNEL(ConvInteger, cpu_qproduct, DT(INT8) | DT(UINT8))
CPU_KERNEL(DequantizeLinear, cpu_dequantize, DT(INT8) | DT(UINT8) | DT(INT16) | DT(UINT16) | DT(INT32))
CPU_KERNEL(DynamicQuantizeLinear, cpu_dynamic_quantize, DT(FLOAT))
CPU_KERNEL(Einsum, cpu_einsum, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(MatMulInteger, cpu_qproduct, DT(INT8) | DT(UINT8))
CPU_KERNEL(QLinearConv, cpu_qproduct, DT(INT8) | DT(UINT8))
CPU_KERNEL(QLinearMatMul, cpu_qproduct, DT(INT8) | DT(UINT8))
CPU_KERNEL(QuantizeLinear, cpu_quantize, DT(FLOAT) | DT(FLOAT16) | DT(BFLOAT16) | DT(INT32))

/* logic, comparison, cast and more elementwise (cpu/elementwise.c) */

