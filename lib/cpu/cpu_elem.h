#pragma once
/*
 * Element access of any dtype by index, for kernels that serve many dtypes without a copy
 * per type (quantization, the typed matrix products): loads widen to double or int64,
 * stores narrow (floats round to nearest even; integers wrap, callers saturate first).
 */
#include "core/common.h"

double cpu_load_f64(vkml_dtype dtype, const void *data, int64_t i);
int64_t cpu_load_i64(vkml_dtype dtype, const void *data, int64_t i);
void cpu_store_f64(vkml_dtype dtype, void *data, int64_t i, double v);
void cpu_store_i64(vkml_dtype dtype, void *data, int64_t i, int64_t v);
bool cpu_dtype_is_float(vkml_dtype dtype);
/* Smallest and largest value of an integer dtype (int64 range for 64-bit ones). */
void cpu_int_range(vkml_dtype dtype, int64_t *lo, int64_t *hi);

/* Runs a float kernel on a node of float16/bfloat16 tensors: every float16/bfloat16 input
 * and output gets a float copy (inputs converted in, outputs converted back after), so one
 * float kernel serves the half types with float arithmetic. */
typedef struct op_cpu_args op_cpu_args;
vkml_status cpu_run_widened(const op_cpu_args *args,
                            vkml_status (*fn)(const op_cpu_args *args, vkml_error *err),
                            vkml_error *err);
