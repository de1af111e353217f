/*
 * The CPU device's kernel registry: one line per op it runs.
 *   CPU_KERNEL(op, fn, dtypes)
 * op is a name from lib/ops/op_list.h; fn(const op_cpu_args *, vkml_error *) lives in
 * lib/cpu/<family>.c; dtypes is the mask (DT(...) bits, lib/ops/op.h) of the node types
 * it takes (input 0's dtype, or output 0's for OP_TYPE_FROM_OUTPUT ops). The CPU kernels
 * are the reference every other device is tested against: every op should have one.
 */
/* elementwise */
CPU_KERNEL(Abs, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Acos, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Acosh, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Add, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Asin, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Asinh, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Atan, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Atanh, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Ceil, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Celu, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Clip, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Cos, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Cosh, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Div, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Elu, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Erf, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Exp, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Floor, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Gelu, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(HardSigmoid, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(HardSwish, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(LeakyRelu, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Log, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Max, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Mean, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Min, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Mish, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Mod, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Mul, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Neg, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Pow, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(PRelu, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Reciprocal, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Relu, cpu_eltwise, DT_FLOATS | DT(BFLOAT16) | DT_SINTS)
CPU_KERNEL(Round, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Selu, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Sigmoid, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Sign, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Sin, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Sinh, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Softplus, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Softsign, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Sqrt, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Sub, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Sum, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Tan, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Tanh, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(ThresholdedRelu, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
/* convolution */
CPU_KERNEL(Conv, cpu_conv, DT(FLOAT))
/* pooling */
CPU_KERNEL(AveragePool, cpu_pool, DT(FLOAT))
CPU_KERNEL(GlobalAveragePool, cpu_global_pool, DT(FLOAT))
CPU_KERNEL(GlobalMaxPool, cpu_global_pool, DT(FLOAT))
CPU_KERNEL(MaxPool, cpu_pool, DT(FLOAT))
/* matrix products */
CPU_KERNEL(Gemm, cpu_gemm, DT(FLOAT))
CPU_KERNEL(MatMul, cpu_matmul, DT(FLOAT))
/* normalisation */
CPU_KERNEL(Softmax, cpu_softmax, DT(FLOAT))
/* shape and copies */
CPU_KERNEL(Constant, cpu_constant, DT_ALL)
CPU_KERNEL(Flatten, cpu_copy, DT_ALL)
CPU_KERNEL(Identity, cpu_copy, DT_ALL)
CPU_KERNEL(Reshape, cpu_copy, DT_ALL)
/* data movement and shapes (cpu/movement.c, cpu/gather.c) */

/* reductions and normalisation (cpu/reduce.c, cpu/norm.c) */

/* spatial: transposed conv, resize, sampling, detection (cpu/spatial.c, cpu/detect.c) */

/* quantization and integer products (cpu/quant.c, cpu/einsum.c) */

/* logic, comparison, cast and more elementwise (cpu/elementwise.c) */
CPU_KERNEL(And, cpu_eltwise, DT(BOOL))
CPU_KERNEL(BitShift, cpu_eltwise, DT_UINTS)
CPU_KERNEL(BitwiseAnd, cpu_eltwise, DT_INTS)
CPU_KERNEL(BitwiseNot, cpu_eltwise, DT_INTS)
CPU_KERNEL(BitwiseOr, cpu_eltwise, DT_INTS)
CPU_KERNEL(BitwiseXor, cpu_eltwise, DT_INTS)
CPU_KERNEL(Cast, cpu_eltwise, DT_ALL)
CPU_KERNEL(CastLike, cpu_eltwise, DT_ALL)
CPU_KERNEL(Dropout, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Equal, cpu_eltwise, DT_ALL)
CPU_KERNEL(Greater, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(GreaterOrEqual, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(IsInf, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(IsNaN, cpu_eltwise, DT_FLOATS | DT(BFLOAT16))
CPU_KERNEL(Less, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(LessOrEqual, cpu_eltwise, DT_NUMERIC | DT(BFLOAT16))
CPU_KERNEL(Not, cpu_eltwise, DT(BOOL))
CPU_KERNEL(Or, cpu_eltwise, DT(BOOL))
CPU_KERNEL(Where, cpu_eltwise, DT_ALL)
CPU_KERNEL(Xor, cpu_eltwise, DT(BOOL))

