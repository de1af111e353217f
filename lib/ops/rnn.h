#pragma once
/*
 * The recurrent ops RNN, GRU and LSTM (opsets 7-22): one params struct and one shape
 * function for the three; they differ in their gate count (1, 3, 4) and per-direction
 * activation count (1, 2, 3).
 *   X [seq, batch, input] (layout 1: [batch, seq, input]), W [dirs, gates*hidden, input],
 *   R [dirs, gates*hidden, hidden], B [dirs, 2*gates*hidden], sequence_lens [batch] int32,
 *   initial_h (and LSTM's initial_c) [dirs, batch, hidden] (layout 1: [batch, dirs,
 *   hidden]), LSTM's P [dirs, 3*hidden];
 *   Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]), Y_h and LSTM's
 *   Y_c shaped as initial_h.
 * Gate orders are ONNX's: GRU z, r, h; LSTM i, o, f, c; peepholes i, o, f.
 */
#include "ops/elementwise.h"

/* Activations an RNN node may name: most are elementwise ops (their alpha/beta in elt),
 * Affine and ScaledTanh exist only here. */
typedef enum rnn_act_kind { RNN_ACT_ELTWISE, RNN_ACT_AFFINE, RNN_ACT_SCALED_TANH } rnn_act_kind;

typedef struct rnn_activation {
    rnn_act_kind kind;
    eltwise_params elt; /* RNN_ACT_ELTWISE: the op and its alpha/beta */
    float alpha, beta;  /* Affine: alpha * x + beta; ScaledTanh: alpha * tanh(beta * x) */
} rnn_activation;

/* Most activations per direction (LSTM's f, g, h) and directions. */
#define RNN_MAX_ACTS 3
#define RNN_MAX_DIRS 2

typedef struct rnn_params {
    int gates;        /* 1 RNN, 3 GRU, 4 LSTM */
    int acts_per_dir; /* 1 RNN, 2 GRU, 3 LSTM */
    int directions;   /* 1 or 2 (bidirectional) */
    bool reverse;     /* direction "reverse" (one direction, run backwards) */
    int64_t hidden;   /* hidden_size; 0 when absent (taken from W) */
    rnn_activation act[RNN_MAX_DIRS][RNN_MAX_ACTS];
    bool has_clip;
    float clip;               /* gate inputs clipped to [-clip, clip] */
    bool linear_before_reset; /* GRU */
    bool input_forget;        /* LSTM: f = 1 - i */
    int layout;               /* 0: sequence first, 1: batch first (opset 14) */
} rnn_params;

/* Input indices. */
enum { RNN_IN_X, RNN_IN_W, RNN_IN_R, RNN_IN_B, RNN_IN_SEQ_LENS, RNN_IN_H0, RNN_IN_C0, RNN_IN_P };

/* The node's hidden size (from its params or W). */
int64_t rnn_hidden_size(const graph_value *values, const graph_node *node);
