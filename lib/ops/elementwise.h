#pragma once
/*
 * Elementwise ops: one generic description shared by the shape functions, the CPU kernels
 * and the Vulkan lowerings. Every op is a kind of the list below; its attributes are parsed
 * once at load into eltwise_params (node->params). The inputs broadcast numpy-style to the
 * output shape; eltwise_layout gives each input's element strides at that shape, with
 * dims that every operand walks contiguously merged into one.
 */
#include "ops/op.h"

/* Arity and typing of an op. */
typedef enum eltwise_kind {
    ELT_UNARY,    /* y = f(x), y of x's dtype */
    ELT_PREDICATE, /* y = f(x), bool (IsNaN, IsInf) */
    ELT_BINARY,   /* y = a op b, broadcast, one dtype */
    ELT_COMPARE,  /* y = a op b, broadcast, bool */
    ELT_VARIADIC, /* y = x0 op x1 op ..., broadcast (Min, Max, Sum, Mean) */
    ELT_SPECIAL,  /* Clip, Pow, Where, Cast, CastLike, Dropout: own typing */
} eltwise_kind;

/* X(ID, OnnxName, kind): every elementwise op. */
#define ELTWISE_OPS(X)                                                                             \
    X(ABS, Abs, ELT_UNARY) X(NEG, Neg, ELT_UNARY) X(EXP, Exp, ELT_UNARY) X(LOG, Log, ELT_UNARY)   \
    X(SQRT, Sqrt, ELT_UNARY) X(RECIPROCAL, Reciprocal, ELT_UNARY) X(FLOOR, Floor, ELT_UNARY)      \
    X(CEIL, Ceil, ELT_UNARY) X(ROUND, Round, ELT_UNARY) X(SIGN, Sign, ELT_UNARY)                  \
    X(ERF, Erf, ELT_UNARY) X(SIN, Sin, ELT_UNARY) X(COS, Cos, ELT_UNARY) X(TAN, Tan, ELT_UNARY)   \
    X(ASIN, Asin, ELT_UNARY) X(ACOS, Acos, ELT_UNARY) X(ATAN, Atan, ELT_UNARY)                    \
    X(SINH, Sinh, ELT_UNARY) X(COSH, Cosh, ELT_UNARY) X(ASINH, Asinh, ELT_UNARY)                  \
    X(ACOSH, Acosh, ELT_UNARY) X(ATANH, Atanh, ELT_UNARY) X(SOFTPLUS, Softplus, ELT_UNARY)        \
    X(SOFTSIGN, Softsign, ELT_UNARY) X(MISH, Mish, ELT_UNARY) X(ELU, Elu, ELT_UNARY)              \
    X(SELU, Selu, ELT_UNARY) X(CELU, Celu, ELT_UNARY) X(LEAKY_RELU, LeakyRelu, ELT_UNARY)         \
    X(THRESHOLDED_RELU, ThresholdedRelu, ELT_UNARY) X(HARD_SIGMOID, HardSigmoid, ELT_UNARY)       \
    X(HARD_SWISH, HardSwish, ELT_UNARY) X(GELU, Gelu, ELT_UNARY) X(RELU, Relu, ELT_UNARY)         \
    X(SIGMOID, Sigmoid, ELT_UNARY) X(TANH, Tanh, ELT_UNARY) X(NOT, Not, ELT_UNARY)                \
    X(BITWISE_NOT, BitwiseNot, ELT_UNARY) X(IS_NAN, IsNaN, ELT_PREDICATE)                         \
    X(IS_INF, IsInf, ELT_PREDICATE) X(ADD, Add, ELT_BINARY) X(SUB, Sub, ELT_BINARY)               \
    X(MUL, Mul, ELT_BINARY) X(DIV, Div, ELT_BINARY) X(MOD, Mod, ELT_BINARY)                       \
    X(BIT_SHIFT, BitShift, ELT_BINARY) X(BITWISE_AND, BitwiseAnd, ELT_BINARY)                     \
    X(BITWISE_OR, BitwiseOr, ELT_BINARY) X(BITWISE_XOR, BitwiseXor, ELT_BINARY)                   \
    X(AND, And, ELT_COMPARE) X(OR, Or, ELT_COMPARE) X(XOR, Xor, ELT_COMPARE)                      \
    X(PRELU, PRelu, ELT_BINARY) X(EQUAL, Equal, ELT_COMPARE) X(LESS, Less, ELT_COMPARE)           \
    X(LESS_EQUAL, LessOrEqual, ELT_COMPARE) X(GREATER, Greater, ELT_COMPARE)                      \
    X(GREATER_EQUAL, GreaterOrEqual, ELT_COMPARE) X(MIN, Min, ELT_VARIADIC)                       \
    X(MAX, Max, ELT_VARIADIC) X(SUM, Sum, ELT_VARIADIC) X(MEAN, Mean, ELT_VARIADIC)               \
    X(CLIP, Clip, ELT_SPECIAL) X(POW, Pow, ELT_SPECIAL) X(WHERE, Where, ELT_SPECIAL)              \
    X(CAST, Cast, ELT_SPECIAL) X(CAST_LIKE, CastLike, ELT_SPECIAL) X(DROPOUT, Dropout, ELT_SPECIAL) \
    X(SHRINK, Shrink, ELT_UNARY) X(SWISH, Swish, ELT_UNARY)

typedef enum eltwise_op {
#define X(id, name, kind) ELT_##id,
    ELTWISE_OPS(X)
#undef X
        ELT_OP_COUNT
} eltwise_op;

/* A node's parsed attributes (node->params of every elementwise op). */
typedef struct eltwise_params {
    eltwise_op op;
    eltwise_kind kind;
    /* alpha/beta/gamma of the activations (LeakyRelu, Elu, Selu, Celu, HardSigmoid,
     * ThresholdedRelu, Swish), min/max of Clip before opset 11, lambd/bias of Shrink. */
    float alpha, beta, gamma;
    bool fmod;          /* Mod: C fmod (sign of the dividend) instead of Python's % */
    bool shift_left;    /* BitShift direction */
    bool gelu_tanh;     /* Gelu approximate="tanh" */
    bool detect_pos, detect_neg; /* IsInf */
    vkml_dtype to;      /* Cast */
    bool no_saturate;   /* Cast/CastLike saturate=0: float8 overflow gives inf/NaN */
    int e8m0_round;     /* Cast/CastLike round_mode to float8e8m0 (vkml_e8m0_round) */
    /* Add/Sub/Mul/Div before opset 7: broadcast=1 lines B up with A from `axis`. */
    bool legacy_broadcast;
    int64_t legacy_axis; /* -1: A's trailing dims */
} eltwise_params;

/* The output shape and, per input, its element strides at that shape (0 where
 * broadcast), with size-1 dims dropped and dims that every input walks contiguously
 * merged; rank 0 is one element. */
typedef struct eltwise_layout {
    int rank;
    int64_t dims[VKML_MAX_RANK];
    int n_inputs;
    int64_t (*strides)[VKML_MAX_RANK]; /* [n_inputs][rank], caller's storage */
    size_t count;
} eltwise_layout;

/* Fills layout for inputs `first`..`first + n - 1` of the node (absent ones get stride 0)
 * read at output 0's shape; strides must hold n rows. */
void eltwise_layout_of(const graph_value *values, const graph_node *node, int first, int n,
                       int64_t (*strides)[VKML_MAX_RANK], eltwise_layout *layout);

/* The layout of a variadic op's later steps, y = y op x_k: strides[0] the output read
 * densely, strides[1] input k; strides must hold 2 rows. */
void eltwise_layout_fold(const graph_value *values, const graph_node *node, int k,
                         int64_t (*strides)[VKML_MAX_RANK], eltwise_layout *layout);

/* Name of an op ("Add"). */
const char *eltwise_op_name(eltwise_op op);
