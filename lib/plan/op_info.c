/* The public view of the op table (vkml_op_count/vkml_op): the schema with what each
 * device's registry runs, the planner's own ops (OP_INTERNAL) left out. Filled once, at
 * first use. */
#include "cpu/cpu_kernels.h"
#include "vulkan/vk_ops.h"

#include <pthread.h>

#define OP_INFO_DTYPES_SIZE 160 /* bytes of one dtype list ("float,float16,...") */

static vkml_op_info op_infos[OP_ID_COUNT];
static char op_dtypes[OP_ID_COUNT][2][OP_INFO_DTYPES_SIZE];
static size_t n_op_infos;
static pthread_once_t op_infos_once = PTHREAD_ONCE_INIT;

static void fill_op_infos(void)
{
    for (size_t i = 0; i < op_table_size(); i++) {
        const op_def *op = op_table_entry(i);
        if (op->flags & OP_INTERNAL)
            continue;
        size_t k = n_op_infos++;
        const cpu_kernel *cpu = cpu_kernel_for(op);
        const gpu_kernel *gpu = vk_kernel_for(op);
        op_dtype_mask_string(cpu ? cpu->dtypes : 0, op_dtypes[k][0], OP_INFO_DTYPES_SIZE);
        op_dtype_mask_string(gpu ? gpu->dtypes : 0, op_dtypes[k][1], OP_INFO_DTYPES_SIZE);
        op_infos[k] = (vkml_op_info){
            .name = op->name,
            .domain = op->domain,
            .since_version = op->since_version,
            .last_version = op->last_version,
            .cpu = cpu != NULL,
            .gpu = gpu != NULL,
            .dtypes = op_dtypes[k][0],
            .gpu_dtypes = op_dtypes[k][1],
            .lowered = (op->flags & OP_LOWERED) != 0,
        };
    }
}

size_t vkml_op_count(void)
{
    pthread_once(&op_infos_once, fill_op_infos);
    return n_op_infos;
}

const vkml_op_info *vkml_op(size_t index)
{
    pthread_once(&op_infos_once, fill_op_infos);
    return index < n_op_infos ? &op_infos[index] : NULL;
}
