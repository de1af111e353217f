#include "ops/op.h"
#include "ops/op_decls.h"

#include <string.h>

static const op_def op_table[] = {
#define OP(name_, domain_, since_, last_, dtypes_, flags_, infer_, cpu_, gpu_, gpu_supports_) \
    {.name = #name_, .domain = domain_, .since_version = since_, .last_version = last_,     \
     .dtypes = dtypes_, .flags = flags_, .infer = infer_, .cpu = cpu_, .gpu = gpu_,          \
     .gpu_supports = gpu_supports_},
#include "ops/op_list.h"
#undef OP
};

/* The public view, built from the same list so counts stay in step. */
static const vkml_op_info op_infos[] = {
#define OP(name_, domain_, since_, last_, dtypes_, flags_, infer_, cpu_, gpu_, gpu_supports_) \
    {.name = #name_, .domain = domain_, .since_version = since_, .last_version = last_,     \
     .cpu = (cpu_) != NULL, .gpu = (gpu_) != NULL, .dtypes = dtypes_},
#include "ops/op_list.h"
#undef OP
};

_Static_assert(VKML_ARRAY_SIZE(op_table) == VKML_ARRAY_SIZE(op_infos),
               "op table and public op list out of step");

static bool is_default_domain(const char *domain)
{
    return !domain || !domain[0] || strcmp(domain, "ai.onnx") == 0;
}

const op_def *op_find(const char *domain, const char *name)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(op_table); i++) {
        const op_def *op = &op_table[i];
        bool same_domain = is_default_domain(domain) ? is_default_domain(op->domain)
                                                     : strcmp(domain, op->domain) == 0;
        if (same_domain && strcmp(name, op->name) == 0)
            return op;
    }
    return NULL;
}

size_t op_table_size(void)
{
    return VKML_ARRAY_SIZE(op_table);
}

const op_def *op_table_entry(size_t index)
{
    return index < VKML_ARRAY_SIZE(op_table) ? &op_table[index] : NULL;
}

size_t vkml_op_count(void)
{
    return VKML_ARRAY_SIZE(op_infos);
}

const vkml_op_info *vkml_op(size_t index)
{
    return index < VKML_ARRAY_SIZE(op_infos) ? &op_infos[index] : NULL;
}
