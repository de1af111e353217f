#pragma once
/* The CPU elementwise kernels' internals: values are loaded from any dtype into one of
 * four wide computation classes, computed a block at a time, and stored to the output's
 * dtype (lib/cpu/elementwise.c: broadcasting driver, loads and stores;
 * lib/cpu/eltwise_math.c: the ops per class). */
#include "ops/elementwise.h"

typedef enum elt_class {
    ELT_CLASS_F32, /* float, float16, bfloat16: computed in float */
    ELT_CLASS_F64, /* double */
    ELT_CLASS_S64, /* signed integers: int64_t */
    ELT_CLASS_U64, /* unsigned integers and bool: uint64_t */
} elt_class;

/* Elements per block (the inputs' and output's scratch rows). */
#define ELT_BLOCK 256

/* One pass over a block: y[j] = op(x[0][j], x[1][j], ...) for j < n, every array of the
 * class's C type. Variadic ops come as pairwise steps (op MIN/MAX/SUM with 2 inputs);
 * Mean's last step is op MEAN with 1 input, dividing by `count`. Cast and the like
 * copy x[0]. */
typedef struct elt_step {
    eltwise_op op;
    const eltwise_params *p;
    int n_inputs;
    double count;
} elt_step;

void elt_compute(elt_class cls, const elt_step *s, void *const *x, void *y, int n);
