#pragma once
/*
 * Ops on string tensors (ops/text.c; kernels in cpu/text.c): StringNormalizer,
 * StringConcat. String values live on the CPU device only (every Vulkan device refuses a
 * node that touches one): a string tensor is an array of `const char *`, UTF-8 and
 * NUL-terminated; a kernel allocates the strings it makes from op_cpu_args.strings.
 */
#include "ops/op.h"

typedef enum strnorm_case {
    STRNORM_CASE_NONE = 0,
    STRNORM_CASE_LOWER,
    STRNORM_CASE_UPPER,
} strnorm_case;

/* StringNormalizer: drops the stop words, then changes the case of what is left. */
typedef struct strnorm_params {
    strnorm_case case_change;
    bool case_sensitive;    /* stop words match exactly, else by their lower case */
    const char **stopwords; /* the node's attribute strings */
    size_t n_stopwords;
} strnorm_params;
