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
OP(Abs, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Acos, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Acosh, "", 9, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Add, "", 1, 14, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Asin, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Asinh, "", 9, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Atan, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Atanh, "", 9, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Ceil, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Celu, "", 12, 12, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Clip, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Cos, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Cosh, "", 9, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Div, "", 1, 14, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Elu, "", 6, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Erf, "", 9, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Exp, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Floor, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Gelu, "", 20, 20, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(HardSigmoid, "", 6, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(HardSwish, "", 14, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(LeakyRelu, "", 6, 16, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Log, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Max, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Mean, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Min, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Mish, "", 18, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Mod, "", 10, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Mul, "", 1, 14, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Neg, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Pow, "", 1, 15, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(PRelu, "", 6, 16, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Reciprocal, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Relu, "", 6, 14, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Round, "", 11, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Selu, "", 6, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Shrink, "", 9, 9, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sigmoid, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sign, "", 9, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sin, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sinh, "", 9, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Softplus, "", 1, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Softsign, "", 1, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sqrt, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sub, "", 1, 14, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sum, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Swish, "", 24, 24, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Tan, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Tanh, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(ThresholdedRelu, "", 10, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
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
/* data movement and shapes (ops/movement.c, ops/view.c, ops/pad.c, ops/generate.c,
 * ops/gather.c) */
OP(Compress, "", 9, 11, OP_DATA_DEPENDENT, compress_params, compress_parse, compress_infer)
OP(Concat, "", 4, 13, 0, axis_params, concat_parse, concat_infer)
OP(ConstantOfShape, "", 9, 25, OP_TYPE_FROM_OUTPUT, constant_of_shape_params,
   constant_of_shape_parse, constant_of_shape_infer)
OP(DepthToSpace, "", 1, 13, 0, space_params, space_parse, space_infer)
OP(Expand, "", 8, 13, 0, op_no_params, NULL, expand_infer)
OP(EyeLike, "", 9, 22, OP_TYPE_FROM_OUTPUT, eye_like_params, eye_like_parse, eye_like_infer)
OP(Gather, "", 1, 13, 0, gather_params, gather_parse, gather_infer)
OP(GatherElements, "", 11, 13, 0, gather_params, gather_parse, gather_elements_infer)
OP(GatherND, "", 11, 13, 0, gather_params, gather_parse, gather_nd_infer)
OP(NonZero, "", 9, 13, OP_DATA_DEPENDENT, op_no_params, NULL, nonzero_infer)
OP(OneHot, "", 9, 11, OP_TYPE_FROM_OUTPUT, axis_params, onehot_parse, onehot_infer)
OP(Pad, "", 2, 25, 0, pad_params, pad_parse, pad_infer)
OP(Range, "", 11, 11, OP_TYPE_FROM_OUTPUT, op_no_params, NULL, range_infer)
OP(Scatter, "", 9, 11, 0, gather_params, gather_parse, gather_elements_infer)
OP(ScatterElements, "", 11, 18, 0, gather_params, gather_parse, gather_elements_infer)
OP(ScatterND, "", 11, 18, 0, gather_params, gather_parse, gather_nd_infer)
OP(Shape, "", 1, 25, OP_FROM_SHAPES, shape_params, shape_parse, shape_infer)
OP(Size, "", 1, 25, OP_FROM_SHAPES, op_no_params, NULL, size_infer)
OP(Slice, "", 1, 13, 0, slice_params, slice_parse, slice_infer)
OP(SpaceToDepth, "", 1, 13, 0, space_params, space_parse, space_infer)
OP(Split, "", 2, 18, 0, split_params, split_parse, split_infer)
OP(Squeeze, "", 1, 25, OP_ALIAS, squeeze_params, squeeze_parse, squeeze_infer)
OP(Tile, "", 6, 13, 0, op_no_params, NULL, tile_infer)
OP(Transpose, "", 1, 25, 0, transpose_params, transpose_parse, transpose_infer)
OP(Trilu, "", 14, 14, 0, trilu_params, trilu_parse, trilu_infer)
OP(Unsqueeze, "", 1, 25, OP_ALIAS, squeeze_params, squeeze_parse, unsqueeze_infer)

/* reductions and normalisation (ops/reduce.c, ops/norm.c) */
OP(ArgMax, "", 1, 13, 0, reduce_params, reduce_parse, reduce_infer)
OP(ArgMin, "", 1, 13, 0, reduce_params, reduce_parse, reduce_infer)
OP(CumProd, "", 26, 26, 0, cumsum_params, cumsum_parse, cumsum_infer)
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
OP(BatchNormalization, "", 6, 15, 0, channel_params, batchnorm_parse, channel_infer)
OP(GroupNormalization, "", 18, 21, 0, norm_params, norm_parse, norm_infer)
OP(Hardmax, "", 1, 13, 0, norm_params, norm_parse, norm_infer)
OP(InstanceNormalization, "", 6, 22, 0, norm_params, norm_parse, norm_infer)
OP(LRN, "", 1, 13, 0, channel_params, lrn_parse, channel_infer)
OP(LayerNormalization, "", 17, 17, 0, norm_params, norm_parse, norm_infer)
OP(LogSoftmax, "", 1, 13, 0, norm_params, norm_parse, norm_infer)
OP(LpNormalization, "", 1, 22, 0, norm_params, norm_parse, norm_infer)
OP(MeanVarianceNormalization, "", 9, 13, 0, norm_params, norm_parse, norm_infer)
OP(RMSNormalization, "", 23, 23, 0, norm_params, norm_parse, norm_infer)
OP(Softmax, "", 1, 13, 0, norm_params, norm_parse, norm_infer)

/* spatial: transposed conv, resize, sampling, detection (ops/spatial.c, ops/detect.c) */
OP(ConvTranspose, "", 1, 22, 0, convtranspose_params, convtranspose_parse, convtranspose_infer)
OP(GridSample, "", 16, 22, 0, gridsample_params, gridsample_parse, gridsample_infer)
OP(NonMaxSuppression, "", 10, 22, OP_DATA_DEPENDENT, nms_params, nms_parse, nms_infer)
OP(Resize, "", 10, 22, 0, resize_params, resize_parse, resize_infer)
OP(RoiAlign, "", 10, 22, 0, roialign_params, roialign_parse, roialign_infer)
OP(Upsample, "", 7, 9, 0, resize_params, resize_parse, resize_infer)

/* quantization and integer products (ops/quant.c, ops/einsum.c) */
OP(Attention, "", 23, 24, 0, attention_params, attention_parse, attention_infer)
OP(ConvInteger, "", 10, 10, 0, conv_attrs, conv_parse, qprod_infer)
OP(DequantizeLinear, "", 10, 25, 0, quant_params, quant_parse, dequantize_infer)
OP(DynamicQuantizeLinear, "", 11, 11, 0, op_no_params, NULL, dynamic_quantize_infer)
OP(Einsum, "", 12, 12, 0, einsum_params, einsum_parse, einsum_infer)
OP(MatMulInteger, "", 10, 10, 0, op_no_params, NULL, qprod_infer)
OP(QLinearConv, "", 10, 10, 0, conv_attrs, conv_parse, qprod_infer)
OP(QLinearMatMul, "", 10, 21, 0, op_no_params, NULL, qprod_infer)
OP(QuantizeLinear, "", 10, 25, 0, quant_params, quant_parse, quantize_infer)

/* logic, comparison, cast and more elementwise (ops/elementwise.c) */
OP(And, "", 7, 7, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(BitShift, "", 11, 11, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(BitwiseAnd, "", 18, 18, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(BitwiseNot, "", 18, 18, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(BitwiseOr, "", 18, 18, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(BitwiseXor, "", 18, 18, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Cast, "", 6, 25, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(CastLike, "", 15, 25, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Dropout, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Equal, "", 7, 19, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Greater, "", 7, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(GreaterOrEqual, "", 12, 16, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(IsInf, "", 10, 20, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(IsNaN, "", 9, 20, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Less, "", 7, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(LessOrEqual, "", 12, 16, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Not, "", 1, 1, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Or, "", 7, 7, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Where, "", 9, 16, OP_TYPE_FROM_OUTPUT, eltwise_params, eltwise_parse, eltwise_infer)
OP(Xor, "", 7, 7, 0, eltwise_params, eltwise_parse, eltwise_infer)

/* remaining ops: losses, BitCast, Det, ReverseSequence, RotaryEmbedding, DFT, the window
 * functions, TensorScatter (ops/loss.c, ops/misc.c, ops/signal.c, ops/misc.h) */
OP(NegativeLogLikelihoodLoss, "", 12, 22, 0, loss_params, loss_parse, loss_infer)
OP(SoftmaxCrossEntropyLoss, "", 12, 13, 0, loss_params, loss_parse, loss_infer)
OP(BitCast, "", 26, 26, OP_TYPE_FROM_OUTPUT, bitcast_params, bitcast_parse, bitcast_infer)
OP(Det, "", 11, 22, 0, op_no_params, NULL, det_infer)
OP(ReverseSequence, "", 10, 10, 0, revseq_params, revseq_parse, revseq_infer)
OP(RotaryEmbedding, "", 23, 23, 0, rotary_params, rotary_parse, rotary_infer)
OP(DFT, "", 17, 20, 0, dft_params, dft_parse, dft_infer)
OP(HannWindow, "", 17, 17, OP_TYPE_FROM_OUTPUT, window_fn_params, window_fn_parse, window_fn_infer)
OP(HammingWindow, "", 17, 17, OP_TYPE_FROM_OUTPUT, window_fn_params, window_fn_parse,
   window_fn_infer)
OP(BlackmanWindow, "", 17, 17, OP_TYPE_FROM_OUTPUT, window_fn_params, window_fn_parse,
   window_fn_infer)
OP(TensorScatter, "", 24, 24, 0, tscatter_params, tscatter_parse, tscatter_infer)
/* strings: CPU device only (ops/text.c) */
OP(StringConcat, "", 20, 20, 0, op_no_params, NULL, strconcat_infer)
OP(StringNormalizer, "", 10, 10, OP_DATA_DEPENDENT, strnorm_params, strnorm_parse, strnorm_infer)
/* recurrent and leftovers (ops/rnn.c, ops/deformconv.c) */
OP(DeformConv, "", 19, 22, 0, deformconv_attrs, deformconv_parse, deformconv_infer)
OP(GRU, "", 7, 22, 0, rnn_params, rnn_parse, rnn_infer)
OP(LSTM, "", 7, 22, 0, rnn_params, rnn_parse, rnn_infer)
OP(RNN, "", 7, 22, 0, rnn_params, rnn_parse, rnn_infer)
/* sequences: lowered to tensor ops at plan time, no kernel (ops/sequence.c,
 * passes/lower_seq.c) */
OP(ConcatFromSequence, "", 11, 11, OP_LOWERED, seq_params, concat_from_sequence_parse,
   sequence_infer)
OP(SequenceAt, "", 11, 11, OP_LOWERED, op_no_params, NULL, sequence_infer)
OP(SequenceConstruct, "", 11, 11, OP_LOWERED, op_no_params, NULL, sequence_infer)
OP(SequenceEmpty, "", 11, 11, OP_LOWERED, seq_params, sequence_empty_parse, sequence_infer)
OP(SequenceErase, "", 11, 11, OP_LOWERED, op_no_params, NULL, sequence_infer)
OP(SequenceInsert, "", 11, 11, OP_LOWERED, op_no_params, NULL, sequence_infer)
OP(SequenceLength, "", 11, 11, OP_LOWERED, op_no_params, NULL, sequence_infer)
OP(SplitToSequence, "", 11, 11, OP_LOWERED, seq_params, split_to_sequence_parse, sequence_infer)
/* control flow: subgraphs, no kernel; inlined, folded or run by the dynamic tail
 * (ops/control.c, passes/lower_cf.c, passes/cf_run.c) */
OP(If, "", 1, 24, OP_CONTROL_FLOW | OP_DATA_DEPENDENT, cf_params, if_parse, control_infer)
OP(Loop, "", 1, 24, OP_CONTROL_FLOW | OP_DATA_DEPENDENT, cf_params, loop_parse, control_infer)
OP(Scan, "", 8, 24, OP_CONTROL_FLOW | OP_DATA_DEPENDENT, cf_params, scan_parse, control_infer)
/* made by the planner from groups of elementwise nodes, never read from a model
 * (ops/fused.c, passes/fuse_eltwise.c) */
OP(FusedElementwise, "vkml.internal", 1, 1, OP_TYPE_FROM_OUTPUT | OP_INTERNAL, fused_params,
   fused_parse, fused_infer)
/* made by the planner from MatMul -> Softmax -> MatMul (ops/fused_attention.c,
 * passes/fuse_attention.c) */
OP(FusedAttention, "vkml.internal", 1, 1, OP_INTERNAL, fused_attention_params,
   fused_attention_parse, fused_attention_infer)
/* vkml's own ops, domain com.vkml (ops/preprocess.c) */
OP(ImagePreprocess, "com.vkml", 1, 1, OP_TYPE_FROM_OUTPUT, preprocess_params, preprocess_parse,
   preprocess_infer)
