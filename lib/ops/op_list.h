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
OP(Pow, "", 7, 15, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(PRelu, "", 7, 16, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Reciprocal, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Relu, "", 6, 14, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Round, "", 11, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Selu, "", 6, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sigmoid, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sign, "", 9, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sin, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sinh, "", 9, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Softplus, "", 1, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Softsign, "", 1, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sqrt, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sub, "", 1, 14, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Sum, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Tan, "", 7, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(Tanh, "", 6, 13, 0, eltwise_params, eltwise_parse, eltwise_infer)
OP(ThresholdedRelu, "", 10, 22, 0, eltwise_params, eltwise_parse, eltwise_infer)
/* convolution (ops/conv.c) */
OP(Conv, "", 1, 22, 0, op_no_params, NULL, conv_infer)
/* pooling (ops/pool.c) */
OP(AveragePool, "", 1, 22, 0, op_no_params, NULL, pool_infer)
OP(GlobalAveragePool, "", 1, 22, 0, op_no_params, NULL, global_pool_infer)
OP(GlobalMaxPool, "", 1, 22, 0, op_no_params, NULL, global_pool_infer)
OP(MaxPool, "", 1, 22, 0, op_no_params, NULL, pool_infer)
/* matrix products (ops/matmul.c) */
OP(Gemm, "", 1, 13, 0, op_no_params, NULL, gemm_infer)
OP(MatMul, "", 1, 13, 0, op_no_params, NULL, matmul_infer)
/* normalisation (ops/softmax.c) */
OP(Softmax, "", 1, 13, 0, op_no_params, NULL, softmax_infer)
/* shape and copies (ops/shape.c) */
OP(Constant, "", 1, 21, 0, op_no_params, NULL, constant_infer)
OP(Flatten, "", 1, 21, OP_ALIAS, op_no_params, NULL, flatten_infer)
OP(Identity, "", 1, 21, OP_ALIAS, op_no_params, NULL, identity_infer)
OP(Reshape, "", 5, 21, OP_ALIAS, op_no_params, NULL, reshape_infer)
/* data movement and shapes (ops/movement.c, ops/gather.c) */

/* reductions and normalisation (ops/reduce.c, ops/norm.c) */

/* spatial: transposed conv, resize, sampling, detection (ops/spatial.c, ops/detect.c) */

/* quantization and integer products (ops/quant.c, ops/einsum.c) */

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

