#include "ops/op.h"
#include "ops/op_decls.h"

#include <pthread.h>
#include <string.h>

static const op_def op_table[] = {
#define OP(name_, domain_, since_, last_, dtypes_, flags_, infer_, cpu_, gpu_, gpu_supports_) \
    {.name = #name_, .domain = domain_, .since_version = since_, .last_version = last_,     \
     .dtypes = dtypes_, .flags = flags_, .infer = infer_, .cpu = cpu_, .gpu = gpu_,          \
     .gpu_supports = gpu_supports_},
#include "ops/op_list.h"
#undef OP
};

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

/* The public view, filled once from the table (at run time: whether a kernel pointer is
 * NULL is not a constant expression under -fsanitize=undefined). */
static vkml_op_info op_infos[VKML_ARRAY_SIZE(op_table)];
static pthread_once_t op_infos_once = PTHREAD_ONCE_INIT;

static void fill_op_infos(void)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(op_table); i++) {
        const op_def *op = &op_table[i];
        op_infos[i] = (vkml_op_info){
            .name = op->name,
            .domain = op->domain,
            .since_version = op->since_version,
            .last_version = op->last_version,
            .cpu = op->cpu != NULL,
            .gpu = op->gpu != NULL,
            .dtypes = op->dtypes,
        };
    }
}

size_t vkml_op_count(void)
{
    return VKML_ARRAY_SIZE(op_table);
}

const vkml_op_info *vkml_op(size_t index)
{
    if (index >= VKML_ARRAY_SIZE(op_table))
        return NULL;
    pthread_once(&op_infos_once, fill_op_infos);
    return &op_infos[index];
}
