/*
 * THE op list: the schema of every ONNX op vkml implements. One line per op; op ids, the
 * registry, `vkml ops`, docs/ops.md and the conformance report are generated from it.
 *   OP(name, domain, since, last, flags, params_type, parse, infer)
 * params_type is the struct op_bind_node allocates for node->params and parse fills
 * (op_no_params and NULL for ops without attributes); infer is the shape function. Both
 * live in lib/ops/<family>.c. Kernels are not listed here: each device has its own
 * registry keyed by op (lib/cpu/cpu_kernel_list.h, lib/vulkan/vk_kernel_list.h).
 * Keep the list sorted by family, then name.
 */
/* elementwise (ops/elementwise.c) */
OP(Add, "", 1, 14, 0, op_no_params, NULL, eltwise_binary_infer)
OP(Sub, "", 1, 14, 0, op_no_params, NULL, eltwise_binary_infer)
OP(Mul, "", 1, 14, 0, op_no_params, NULL, eltwise_binary_infer)
OP(Div, "", 1, 14, 0, op_no_params, NULL, eltwise_binary_infer)
OP(Relu, "", 6, 14, 0, op_no_params, NULL, eltwise_unary_infer)
OP(Sigmoid, "", 6, 13, 0, op_no_params, NULL, eltwise_unary_infer)
OP(Tanh, "", 6, 13, 0, op_no_params, NULL, eltwise_unary_infer)
/* convolution (ops/conv.c) */
OP(Conv, "", 1, 22, 0, conv_attrs, conv_parse, conv_infer)
/* pooling (ops/pool.c) */
OP(AveragePool, "", 1, 22, 0, pool_attrs, pool_parse, pool_infer)
OP(GlobalAveragePool, "", 1, 22, 0, op_no_params, NULL, global_pool_infer)
OP(GlobalMaxPool, "", 1, 22, 0, op_no_params, NULL, global_pool_infer)
OP(LpPool, "", 2, 22, 0, pool_attrs, pool_parse, pool_infer)
OP(MaxPool, "", 1, 22, 0, pool_attrs, pool_parse, pool_infer)
OP(MaxUnpool, "", 9, 22, 0, unpool_params, unpool_parse, unpool_infer)
/* matrix products (ops/matmul.c) */
OP(Gemm, "", 1, 13, 0, op_no_params, NULL, gemm_infer)
OP(MatMul, "", 1, 13, 0, op_no_params, NULL, matmul_infer)
/* shape and copies (ops/shape.c) */
OP(Constant, "", 1, 21, 0, op_no_params, NULL, constant_infer)
OP(Flatten, "", 1, 21, OP_ALIAS, op_no_params, NULL, flatten_infer)
OP(Identity, "", 1, 21, OP_ALIAS, op_no_params, NULL, identity_infer)
OP(Reshape, "", 5, 21, OP_ALIAS, op_no_params, NULL, reshape_infer)
/* data movement and shapes (ops/movement.c, ops/gather.c) */

/* reductions and normalisation (ops/reduce.c, ops/norm.c) */
OP(ArgMax, "", 1, 13, 0, reduce_params, reduce_parse, reduce_infer)
OP(ArgMin, "", 1, 13, 0, reduce_params, reduce_parse, reduce_infer)
OP(CumSum, "", 11, 14, 0, cumsum_params, cumsum_parse, cumsum_infer)
OP(ReduceL1, "", 1, 18, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceL2, "", 1, 18, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceLogSum, "", 1, 18, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceLogSumExp, "", 1, 18, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceMax, "", 1, 20, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceMean, "", 1, 18, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceMin, "", 1, 20, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceProd, "", 1, 18, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceSum, "", 1, 13, 0, reduce_params, reduce_parse, reduce_infer)
OP(ReduceSumSquare, "", 1, 18, 0, reduce_params, reduce_parse, reduce_infer)
OP(TopK, "", 10, 24, 0, topk_params, topk_parse, topk_infer)
OP(BatchNormalization, "", 7, 15, 0, channel_params, batchnorm_parse, channel_infer)
OP(GroupNormalization, "", 18, 21, 0, norm_params, norm_parse, norm_infer)
OP(Hardmax, "", 1, 13, 0, norm_params, norm_parse, norm_infer)
OP(InstanceNormalization, "", 6, 22, 0, norm_params, norm_parse, norm_infer)
OP(LRN, "", 1, 13, 0, channel_params, lrn_parse, channel_infer)
OP(LayerNormalization, "", 17, 17, 0, norm_params, norm_parse, norm_infer)
OP(LogSoftmax, "", 1, 13, 0, norm_params, norm_parse, norm_infer)
OP(LpNormalization, "", 1, 22, 0, norm_params, norm_parse, norm_infer)
OP(MeanVarianceNormalization, "", 9, 13, 0, norm_params, norm_parse, norm_infer)
OP(Softmax, "", 1, 13, 0, norm_params, norm_parse, norm_infer)

/* spatial: transposed conv, resize, sampling, detection (ops/spatial.c, ops/detect.c) */
OP(ConvTranspose, "", 1, 22, 0, convtranspose_params, convtranspose_parse, convtranspose_infer)
OP(GridSample, "", 16, 22, 0, gridsample_params, gridsample_parse, gridsample_infer)
OP(NonMaxSuppression, "", 10, 22, OP_DATA_DEPENDENT, nms_params, nms_parse, nms_infer)
OP(Resize, "", 10, 22, 0, resize_params, resize_parse, resize_infer)
OP(RoiAlign, "", 10, 22, 0, roialign_params, roialign_parse, roialign_infer)
OP(Upsample, "", 7, 9, 0, resize_params, resize_parse, resize_infer)

/* quantization and integer products (ops/quant.c, ops/einsum.c) */

/* logic, comparison, cast and more elementwise (ops/elementwise.c) */

