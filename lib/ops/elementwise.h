#pragma once
/*
 * Elementwise ops: one generic description shared by the shape functions, the CPU kernels
 * and the Vulkan lowerings. Every op is a kind of the list below; its attributes are parsed
 * once at load into eltwise_params (node->params). The inputs broadcast numpy-style to the
 * output shape; eltwise_layout gives each input's element strides at that shape, with
 * dims that every operand walks contiguously merged into one. The op codes are
 * shaders/common/eltwise_ops.h's list (enum eltwise_op), shared with the shaders.
 */
#include "eltwise_ops.h"
#include "ops/op.h"

/* Arity and typing of an op. */
typedef enum eltwise_kind {
    ELT_UNARY,     /* y = f(x), y of x's dtype */
    ELT_PREDICATE, /* y = f(x), bool (IsNaN, IsInf) */
    ELT_BINARY,    /* y = a op b, broadcast, one dtype */
    ELT_COMPARE,   /* y = a op b, broadcast, bool */
    ELT_VARIADIC,  /* y = x0 op x1 op ..., broadcast (Min, Max, Sum, Mean) */
    ELT_SPECIAL,   /* Clip, Pow, Where, Cast, CastLike, Dropout: own typing */
    ELT_INTERNAL,  /* a form vkml makes (Identity, Gelu's tanh form, epilogue pairs) */
} eltwise_kind;

/* How an op runs in fused programs and epilogues (the fuse column of ELTWISE_OPS). */
typedef enum eltwise_fuse {
    ELT_NOFUSE,
    ELT_FUSE1,     /* one source */
    ELT_FUSE2,     /* two sources */
    ELT_FUSE1_EPI, /* one source, and an epilogue activation */
    ELT_EPI,       /* an epilogue activation only */
} eltwise_fuse;

/* A node's parsed attributes (node->params of every elementwise op). */
typedef struct eltwise_params {
    eltwise_op op;
    eltwise_kind kind;
    /* alpha/beta/gamma of the activations (LeakyRelu, Elu, Selu, Celu, HardSigmoid,
     * ThresholdedRelu, Swish), min/max of Clip before opset 11, lambd/bias of Shrink. */
    float alpha, beta, gamma;
    bool fmod;                   /* Mod: C fmod (sign of the dividend) instead of Python's % */
    bool shift_left;             /* BitShift direction */
    bool detect_pos, detect_neg; /* IsInf */
    vkml_dtype to;               /* Cast */
    bool no_saturate;            /* Cast/CastLike saturate=0: float8 overflow gives inf/NaN */
    int e8m0_round;              /* Cast/CastLike round_mode to float8e8m0 (vkml_e8m0_round) */
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
/* Its ID in the list ("ADD"): the ELT_F_<ID> formula and fused_<ID> function in GLSL. */
const char *eltwise_op_id(eltwise_op op);
/* Sources of the op as an instruction of a fused program: 1 or 2, 0 when it has none. */
int eltwise_fused_arity(eltwise_op op);
/* Whether the op is an epilogue activation of Conv/Gemm/MatMul. */
bool eltwise_is_epilogue(eltwise_op op);
