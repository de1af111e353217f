/*
 * THE list of elementwise op codes, shared by C and GLSL. One code per op is used by the
 * elementwise kernels (node params), the fused elementwise programs (instruction words,
 * common/fused_program.h) and the Conv/Gemm/MatMul epilogues (graph_epilogue.act, the
 * push constant epi_act).
 *
 *   X(ID, OnnxName, kind, fuse, code, gpu)
 *   kind  eltwise_kind (lib/ops/elementwise.h); ELT_INTERNAL: a form vkml's passes and
 *         kernels use, never parsed from a model
 *   fuse  NOFUSE: not in fused programs; FUSE1 / FUSE2: an instruction of a fused program
 *         with one / two sources; FUSE1_EPI: that and an epilogue activation; EPI: an
 *         epilogue activation only
 *   code  0, 1, 2, ... in list order (lib/ops/elementwise.c asserts it); the fused
 *         interpreter tests the codes in this order, so the common ops come first
 *   gpu   the element types of its eltwise_unary.comp kernel: GPU_FL (float32, float16),
 *         GPU_FL64 (and double), GPU_NUM (every number type), GPU_FL64_SINTS (and signed
 *         integers), GPU_BOOL, GPU_INTS; GPU_NONE: no unary kernel. shaders/meson.build
 *         builds the variants from it, and lib/vulkan/vk_kernel_list.h registers the unary
 *         ops and predicates with those types.
 *
 * C gets enum eltwise_op (ELT_<ID>), GLSL const int ELT_<ID>. The formulas are
 * eltwise_formula_f32/f64 (lib/ops/eltwise_formula.h) and ELT_F_<ID>
 * (common/eltwise_math.glsl).
 *
 * Adding an elementwise op (a fusable unary one, say Foo): five places, one line or
 * one case each.
 *   1. lib/ops/op_list.h            OP(Foo, ...): the schema (name, opsets)
 *   2. lib/cpu/cpu_kernel_list.h    CPU_KERNEL(Foo, cpu_eltwise, dtypes)
 *   3. this list                    X(FOO, Foo, ELT_UNARY, FUSE1, next code, GPU_FL):
 *                                   its Vulkan kernel variants and registry line too;
 *                                   FUSE1_EPI makes it a Conv/Gemm/MatMul epilogue
 *                                   activation (passes/fuse_epilogue.c's match_act then
 *                                   matches it)
 *   4. lib/ops/eltwise_formula.h    case ELT_FOO: the C formula
 *   5. common/eltwise_math.glsl     #define ELT_F_FOO(T, v, z, al, be, ga): the GLSL formula
 * Attributes with defaults: parse_coefficients in lib/ops/elementwise.c. The unary kernel
 * table (lib/vulkan/ops_elementwise.c), the fused programs (CPU and GPU, interpreted and
 * generated) and the epilogues (CPU and GPU) follow from the list. A test row goes in
 * tests/ops/test_ops_elementwise.c.
 */
#ifndef VKML_ELTWISE_OPS_H
#define VKML_ELTWISE_OPS_H

#define ELTWISE_OPS(X)                                                                             \
    X(IDENTITY, Identity, ELT_INTERNAL, FUSE1, 0, GPU_NONE) /* y = x (Cast to float in a group) */ \
    X(ADD, Add, ELT_BINARY, FUSE2, 1, GPU_NONE)                                                    \
    X(MUL, Mul, ELT_BINARY, FUSE2, 2, GPU_NONE)                                                    \
    X(SUB, Sub, ELT_BINARY, FUSE2, 3, GPU_NONE)                                                    \
    X(DIV, Div, ELT_BINARY, FUSE2, 4, GPU_NONE)                                                    \
    X(RELU, Relu, ELT_UNARY, FUSE1_EPI, 5, GPU_FL64_SINTS)                                         \
    X(SIGMOID, Sigmoid, ELT_UNARY, FUSE1_EPI, 6, GPU_FL)                                           \
    X(ABS, Abs, ELT_UNARY, FUSE1, 7, GPU_NUM)                                                      \
    X(NEG, Neg, ELT_UNARY, FUSE1, 8, GPU_FL64_SINTS)                                               \
    X(EXP, Exp, ELT_UNARY, FUSE1, 9, GPU_FL)                                                       \
    X(LOG, Log, ELT_UNARY, FUSE1, 10, GPU_FL)                                                      \
    X(SQRT, Sqrt, ELT_UNARY, FUSE1, 11, GPU_FL64)                                                  \
    X(RECIPROCAL, Reciprocal, ELT_UNARY, FUSE1, 12, GPU_FL64)                                      \
    X(FLOOR, Floor, ELT_UNARY, FUSE1, 13, GPU_FL64)                                                \
    X(CEIL, Ceil, ELT_UNARY, FUSE1, 14, GPU_FL64)                                                  \
    X(ERF, Erf, ELT_UNARY, FUSE1, 15, GPU_FL)                                                      \
    X(SOFTPLUS, Softplus, ELT_UNARY, FUSE1, 16, GPU_FL)                                            \
    X(SOFTSIGN, Softsign, ELT_UNARY, FUSE1, 17, GPU_FL64)                                          \
    X(ELU, Elu, ELT_UNARY, FUSE1, 18, GPU_FL)                                                      \
    X(SELU, Selu, ELT_UNARY, FUSE1, 19, GPU_FL)                                                    \
    X(CELU, Celu, ELT_UNARY, FUSE1, 20, GPU_FL)                                                    \
    X(LEAKY_RELU, LeakyRelu, ELT_UNARY, FUSE1_EPI, 21, GPU_FL64)                                   \
    X(HARD_SIGMOID, HardSigmoid, ELT_UNARY, FUSE1_EPI, 22, GPU_FL64)                               \
    X(HARD_SWISH, HardSwish, ELT_UNARY, FUSE1_EPI, 23, GPU_FL64)                                   \
    X(GELU, Gelu, ELT_UNARY, FUSE1_EPI, 24, GPU_FL) /* erf form */                                 \
    X(GELU_TANH, Gelu, ELT_INTERNAL, FUSE1_EPI, 25, GPU_FL) /* Gelu approximate="tanh" */          \
    X(TANH, Tanh, ELT_UNARY, FUSE1, 26, GPU_FL)                                                    \
    X(MISH, Mish, ELT_UNARY, FUSE1, 27, GPU_FL)                                                    \
    X(CLIP, Clip, ELT_SPECIAL, FUSE1_EPI, 28, GPU_FL64) /* fused: bounds alpha, beta */            \
    X(POW, Pow, ELT_SPECIAL, FUSE2, 29, GPU_NONE)                                                  \
    X(MIN, Min, ELT_VARIADIC, FUSE2, 30, GPU_NONE)                                                 \
    X(MAX, Max, ELT_VARIADIC, FUSE2, 31, GPU_NONE)                                                 \
    X(PRELU, PRelu, ELT_BINARY, FUSE2, 32, GPU_NONE)                                               \
    X(SILU, SiLU, ELT_INTERNAL, EPI, 33, GPU_NONE) /* x * Sigmoid(alpha * x) */                    \
    X(X_HARD_SIGMOID, HardSigmoidMul, ELT_INTERNAL, EPI, 34, GPU_NONE) /* x * HardSigmoid(x) */    \
    X(ROUND, Round, ELT_UNARY, NOFUSE, 35, GPU_FL64)                                               \
    X(SIGN, Sign, ELT_UNARY, NOFUSE, 36, GPU_NUM)                                                  \
    X(SIN, Sin, ELT_UNARY, NOFUSE, 37, GPU_FL)                                                     \
    X(COS, Cos, ELT_UNARY, NOFUSE, 38, GPU_FL)                                                     \
    X(TAN, Tan, ELT_UNARY, NOFUSE, 39, GPU_FL)                                                     \
    X(ASIN, Asin, ELT_UNARY, NOFUSE, 40, GPU_FL)                                                   \
    X(ACOS, Acos, ELT_UNARY, NOFUSE, 41, GPU_FL)                                                   \
    X(ATAN, Atan, ELT_UNARY, NOFUSE, 42, GPU_FL)                                                   \
    X(SINH, Sinh, ELT_UNARY, NOFUSE, 43, GPU_FL)                                                   \
    X(COSH, Cosh, ELT_UNARY, NOFUSE, 44, GPU_FL)                                                   \
    X(ASINH, Asinh, ELT_UNARY, NOFUSE, 45, GPU_FL)                                                 \
    X(ACOSH, Acosh, ELT_UNARY, NOFUSE, 46, GPU_FL)                                                 \
    X(ATANH, Atanh, ELT_UNARY, NOFUSE, 47, GPU_FL)                                                 \
    X(THRESHOLDED_RELU, ThresholdedRelu, ELT_UNARY, NOFUSE, 48, GPU_FL64)                          \
    X(SHRINK, Shrink, ELT_UNARY, NOFUSE, 49, GPU_FL64)                                             \
    X(SWISH, Swish, ELT_UNARY, NOFUSE, 50, GPU_FL)                                                 \
    X(NOT, Not, ELT_UNARY, NOFUSE, 51, GPU_BOOL)                                                   \
    X(BITWISE_NOT, BitwiseNot, ELT_UNARY, NOFUSE, 52, GPU_INTS)                                    \
    X(IS_NAN, IsNaN, ELT_PREDICATE, NOFUSE, 53, GPU_FL64)                                          \
    X(IS_INF, IsInf, ELT_PREDICATE, NOFUSE, 54, GPU_FL64)                                          \
    X(MOD, Mod, ELT_BINARY, NOFUSE, 55, GPU_NONE)                                                  \
    X(BIT_SHIFT, BitShift, ELT_BINARY, NOFUSE, 56, GPU_NONE)                                       \
    X(BITWISE_AND, BitwiseAnd, ELT_BINARY, NOFUSE, 57, GPU_NONE)                                   \
    X(BITWISE_OR, BitwiseOr, ELT_BINARY, NOFUSE, 58, GPU_NONE)                                     \
    X(BITWISE_XOR, BitwiseXor, ELT_BINARY, NOFUSE, 59, GPU_NONE)                                   \
    X(AND, And, ELT_COMPARE, NOFUSE, 60, GPU_NONE)                                                 \
    X(OR, Or, ELT_COMPARE, NOFUSE, 61, GPU_NONE)                                                   \
    X(XOR, Xor, ELT_COMPARE, NOFUSE, 62, GPU_NONE)                                                 \
    X(EQUAL, Equal, ELT_COMPARE, NOFUSE, 63, GPU_NONE)                                             \
    X(LESS, Less, ELT_COMPARE, NOFUSE, 64, GPU_NONE)                                               \
    X(LESS_EQUAL, LessOrEqual, ELT_COMPARE, NOFUSE, 65, GPU_NONE)                                  \
    X(GREATER, Greater, ELT_COMPARE, NOFUSE, 66, GPU_NONE)                                         \
    X(GREATER_EQUAL, GreaterOrEqual, ELT_COMPARE, NOFUSE, 67, GPU_NONE)                            \
    X(SUM, Sum, ELT_VARIADIC, NOFUSE, 68, GPU_NONE) /* fused as ADD */                             \
    X(MEAN, Mean, ELT_VARIADIC, NOFUSE, 69, GPU_NONE)                                              \
    X(WHERE, Where, ELT_SPECIAL, NOFUSE, 70, GPU_NONE)                                             \
    X(CAST, Cast, ELT_SPECIAL, NOFUSE, 71, GPU_NONE) /* to float: fused as IDENTITY */             \
    X(CAST_LIKE, CastLike, ELT_SPECIAL, NOFUSE, 72, GPU_NONE)                                      \
    X(DROPOUT, Dropout, ELT_SPECIAL, NOFUSE, 73, GPU_NONE)

#ifndef VKML_GLSL
typedef enum eltwise_op {
#define ELT_ENUM_ENTRY(id, name, kind, fuse, code, gpu) ELT_##id = code,
    ELTWISE_OPS(ELT_ENUM_ENTRY)
#undef ELT_ENUM_ENTRY
        ELT_OP_COUNT
} eltwise_op;
#else
#define ELT_CONST(id, name, kind, fuse, code, gpu) const int ELT_##id = code;
ELTWISE_OPS(ELT_CONST)
#undef ELT_CONST
#endif

#endif
