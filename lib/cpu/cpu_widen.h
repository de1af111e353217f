#pragma once
/* Runs a float kernel on a node of float16/bfloat16 tensors: every float16/bfloat16 input
 * and output gets a float copy (inputs converted in, outputs converted back after), so one
 * float kernel serves the half types with float arithmetic. */
#include "ops/op.h"

vkml_status cpu_run_widened(const op_cpu_args *args,
                            vkml_status (*fn)(const op_cpu_args *args, vkml_error *err),
                            vkml_error *err);
