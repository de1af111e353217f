/*
 * THE list of elementwise op codes, shared by C and GLSL. One code per op is used by the
 * elementwise kernels (node params), the fused elementwise programs (instruction words,
 * common/fused_program.h) and the Conv/Gemm/MatMul epilogues (graph_epilogue.act, the
 * push constant epi_act).
 *
 *   X(ID, OnnxName, kind, fuse, code)
 *   kind  eltwise_kind (lib/ops/elementwise.h); ELT_INTERNAL: a form vkml's passes and
 *         kernels use, never parsed from a model
 *   fuse  NOFUSE: not in fused programs; FUSE1 / FUSE2: an instruction of a fused program
 *         with one / two sources; FUSE1_EPI: that and an epilogue activation; EPI: an
 *         epilogue activation only
 *   code  0, 1, 2, ... in list order (lib/ops/elementwise.c asserts it); the fused
 *         interpreter tests the codes in this order, so the common ops come first
 *
 * C gets enum eltwise_op (ELT_<ID>), GLSL const int ELT_<ID>. The formulas are
 * eltwise_formula_f32/f64 (lib/ops/eltwise_formula.h) and ELT_F_<ID>
 * (common/eltwise_math.glsl).
 *
 * Adding an elementwise op (a fusable unary one, say Foo): seven places, one line or
 * one case each.
 *   1. lib/ops/op_list.h            OP(Foo, ...): the schema (name, opsets)
 *   2. lib/cpu/cpu_kernel_list.h    CPU_KERNEL(Foo, cpu_eltwise, dtypes)
 *   3. lib/vulkan/vk_kernel_list.h  GPU_KERNEL(Foo, gpu_eltwise, gpu_eltwise_supports, dtypes)
 *   4. this list                    X(FOO, Foo, ELT_UNARY, FUSE1, next code); FUSE1_EPI
 *                                   makes it a Conv/Gemm/MatMul epilogue activation too
 *                                   (lib/graph/fuse_epilogue.c's match_act then matches it)
 *   5. lib/ops/eltwise_formula.h    case ELT_FOO: the C formula
 *   6. common/eltwise_math.glsl     #define ELT_F_FOO(T, v, z, al, be, ga): the GLSL formula
 *   7. shaders/meson.build          ['u_foo', 'eltwise_unary.comp', ['OP=FOO'], 2, dtypes]
 * Attributes with defaults: parse_coefficients in lib/ops/elementwise.c. The unary kernel
 * table (lib/vulkan/ops_elementwise.c), the fused programs (CPU and GPU, interpreted and
 * generated) and the epilogues (CPU and GPU) follow from the list. A test row goes in
 * tests/ops/test_ops_elementwise.c.
 */
#ifndef VKML_ELTWISE_OPS_H
#define VKML_ELTWISE_OPS_H

#define ELTWISE_OPS(X)                                                                             \
    X(IDENTITY, Identity, ELT_INTERNAL, FUSE1, 0) /* y = x (Cast to float in a group) */          \
    X(ADD, Add, ELT_BINARY, FUSE2, 1)                                                              \
    X(MUL, Mul, ELT_BINARY, FUSE2, 2)                                                              \
    X(SUB, Sub, ELT_BINARY, FUSE2, 3)                                                              \
    X(DIV, Div, ELT_BINARY, FUSE2, 4)                                                              \
    X(RELU, Relu, ELT_UNARY, FUSE1_EPI, 5)                                                         \
    X(SIGMOID, Sigmoid, ELT_UNARY, FUSE1_EPI, 6)                                                   \
    X(ABS, Abs, ELT_UNARY, FUSE1, 7)                                                               \
    X(NEG, Neg, ELT_UNARY, FUSE1, 8)                                                               \
    X(EXP, Exp, ELT_UNARY, FUSE1, 9)                                                               \
    X(LOG, Log, ELT_UNARY, FUSE1, 10)                                                              \
    X(SQRT, Sqrt, ELT_UNARY, FUSE1, 11)                                                            \
    X(RECIPROCAL, Reciprocal, ELT_UNARY, FUSE1, 12)                                                \
    X(FLOOR, Floor, ELT_UNARY, FUSE1, 13)                                                          \
    X(CEIL, Ceil, ELT_UNARY, FUSE1, 14)                                                            \
    X(ERF, Erf, ELT_UNARY, FUSE1, 15)                                                              \
    X(SOFTPLUS, Softplus, ELT_UNARY, FUSE1, 16)                                                    \
    X(SOFTSIGN, Softsign, ELT_UNARY, FUSE1, 17)                                                    \
    X(ELU, Elu, ELT_UNARY, FUSE1, 18)                                                              \
    X(SELU, Selu, ELT_UNARY, FUSE1, 19)                                                            \
    X(CELU, Celu, ELT_UNARY, FUSE1, 20)                                                            \
    X(LEAKY_RELU, LeakyRelu, ELT_UNARY, FUSE1_EPI, 21)                                             \
    X(HARD_SIGMOID, HardSigmoid, ELT_UNARY, FUSE1_EPI, 22)                                         \
    X(HARD_SWISH, HardSwish, ELT_UNARY, FUSE1_EPI, 23)                                             \
    X(GELU, Gelu, ELT_UNARY, FUSE1_EPI, 24)                     /* erf form */                     \
    X(GELU_TANH, Gelu, ELT_INTERNAL, FUSE1_EPI, 25)             /* Gelu approximate="tanh" */      \
    X(TANH, Tanh, ELT_UNARY, FUSE1, 26)                                                            \
    X(MISH, Mish, ELT_UNARY, FUSE1, 27)                                                            \
    X(CLIP, Clip, ELT_SPECIAL, FUSE1_EPI, 28)                   /* fused: bounds alpha, beta */    \
    X(POW, Pow, ELT_SPECIAL, FUSE2, 29)                                                            \
    X(MIN, Min, ELT_VARIADIC, FUSE2, 30)                                                           \
    X(MAX, Max, ELT_VARIADIC, FUSE2, 31)                                                           \
    X(PRELU, PRelu, ELT_BINARY, FUSE2, 32)                                                         \
    X(SILU, SiLU, ELT_INTERNAL, EPI, 33)                        /* x * Sigmoid(alpha * x) */       \
    X(X_HARD_SIGMOID, HardSigmoidMul, ELT_INTERNAL, EPI, 34)    /* x * HardSigmoid(x) */           \
    X(ROUND, Round, ELT_UNARY, NOFUSE, 35)                                                         \
    X(SIGN, Sign, ELT_UNARY, NOFUSE, 36)                                                           \
    X(SIN, Sin, ELT_UNARY, NOFUSE, 37)                                                             \
    X(COS, Cos, ELT_UNARY, NOFUSE, 38)                                                             \
    X(TAN, Tan, ELT_UNARY, NOFUSE, 39)                                                             \
    X(ASIN, Asin, ELT_UNARY, NOFUSE, 40)                                                           \
    X(ACOS, Acos, ELT_UNARY, NOFUSE, 41)                                                           \
    X(ATAN, Atan, ELT_UNARY, NOFUSE, 42)                                                           \
    X(SINH, Sinh, ELT_UNARY, NOFUSE, 43)                                                           \
    X(COSH, Cosh, ELT_UNARY, NOFUSE, 44)                                                           \
    X(ASINH, Asinh, ELT_UNARY, NOFUSE, 45)                                                         \
    X(ACOSH, Acosh, ELT_UNARY, NOFUSE, 46)                                                         \
    X(ATANH, Atanh, ELT_UNARY, NOFUSE, 47)                                                         \
    X(THRESHOLDED_RELU, ThresholdedRelu, ELT_UNARY, NOFUSE, 48)                                    \
    X(SHRINK, Shrink, ELT_UNARY, NOFUSE, 49)                                                       \
    X(SWISH, Swish, ELT_UNARY, NOFUSE, 50)                                                         \
    X(NOT, Not, ELT_UNARY, NOFUSE, 51)                                                             \
    X(BITWISE_NOT, BitwiseNot, ELT_UNARY, NOFUSE, 52)                                              \
    X(IS_NAN, IsNaN, ELT_PREDICATE, NOFUSE, 53)                                                    \
    X(IS_INF, IsInf, ELT_PREDICATE, NOFUSE, 54)                                                    \
    X(MOD, Mod, ELT_BINARY, NOFUSE, 55)                                                            \
    X(BIT_SHIFT, BitShift, ELT_BINARY, NOFUSE, 56)                                                 \
    X(BITWISE_AND, BitwiseAnd, ELT_BINARY, NOFUSE, 57)                                             \
    X(BITWISE_OR, BitwiseOr, ELT_BINARY, NOFUSE, 58)                                               \
    X(BITWISE_XOR, BitwiseXor, ELT_BINARY, NOFUSE, 59)                                             \
    X(AND, And, ELT_COMPARE, NOFUSE, 60)                                                           \
    X(OR, Or, ELT_COMPARE, NOFUSE, 61)                                                             \
    X(XOR, Xor, ELT_COMPARE, NOFUSE, 62)                                                           \
    X(EQUAL, Equal, ELT_COMPARE, NOFUSE, 63)                                                       \
    X(LESS, Less, ELT_COMPARE, NOFUSE, 64)                                                         \
    X(LESS_EQUAL, LessOrEqual, ELT_COMPARE, NOFUSE, 65)                                            \
    X(GREATER, Greater, ELT_COMPARE, NOFUSE, 66)                                                   \
    X(GREATER_EQUAL, GreaterOrEqual, ELT_COMPARE, NOFUSE, 67)                                      \
    X(SUM, Sum, ELT_VARIADIC, NOFUSE, 68) /* fused as ADD */                                       \
    X(MEAN, Mean, ELT_VARIADIC, NOFUSE, 69)                                                        \
    X(WHERE, Where, ELT_SPECIAL, NOFUSE, 70)                                                       \
    X(CAST, Cast, ELT_SPECIAL, NOFUSE, 71) /* to float: fused as IDENTITY */                       \
    X(CAST_LIKE, CastLike, ELT_SPECIAL, NOFUSE, 72)                                                \
    X(DROPOUT, Dropout, ELT_SPECIAL, NOFUSE, 73)

#ifndef VKML_GLSL
typedef enum eltwise_op {
#define ELT_ENUM_ENTRY(id, name, kind, fuse, code) ELT_##id = code,
    ELTWISE_OPS(ELT_ENUM_ENTRY)
#undef ELT_ENUM_ENTRY
        ELT_OP_COUNT
} eltwise_op;
#else
#define ELT_CONST(id, name, kind, fuse, code) const int ELT_##id = code;
ELTWISE_OPS(ELT_CONST)
#undef ELT_CONST
#endif

#endif
