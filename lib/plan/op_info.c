/* The public view of the op table (vkml_op_count/vkml_op): the schema with what each kind
 * of device's registry runs, the planner's own ops (OP_INTERNAL) left out. Filled once, at
 * first use. */
#include "device/registry.h"

#include <pthread.h>

#define OP_INFO_DTYPES_SIZE 160 /* bytes of one dtype list ("float,float16,...") */

static vkml_op_info op_infos[OP_ID_COUNT];
static char op_dtypes[OP_ID_COUNT][VKML_MAX_DEVICE_KINDS][OP_INFO_DTYPES_SIZE];
static size_t n_op_infos;
static pthread_once_t op_infos_once = PTHREAD_ONCE_INIT;

static void fill_op_infos(void)
{
    int n_kinds;
    const device_kind *const *kinds = device_kinds(&n_kinds);
    for (size_t i = 0; i < op_table_size(); i++) {
        const op_def *op = op_table_entry(i);
        if (op->flags & OP_INTERNAL)
            continue;
        size_t k = n_op_infos++;
        vkml_op_info *info = &op_infos[k];
        *info = (vkml_op_info){
            .name = op->name,
            .domain = op->domain,
            .since_version = op->since_version,
            .last_version = op->last_version,
            .n_kernels = n_kinds,
            .lowered = (op->flags & OP_LOWERED) != 0,
            .control_flow = (op->flags & OP_CONTROL_FLOW) != 0,
        };
        for (int d = 0; d < n_kinds; d++) {
            uint32_t dtypes = 0;
            bool present = kinds[d]->kernel_for(op, &dtypes);
            op_dtype_mask_string(present ? dtypes : 0, op_dtypes[k][d], OP_INFO_DTYPES_SIZE);
            const char *library = kinds[d]->library_for ? kinds[d]->library_for(op) : NULL;
            info->kernels[d] = (vkml_op_kernel){.device_kind = kinds[d]->name,
                                                .present = present,
                                                .dtypes = op_dtypes[k][d],
                                                .library = library ? library : ""};
        }
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
