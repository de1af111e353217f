/* Vulkan lowering of FusedElementwise (ops/fused.h): one dispatch of the group's generated
 * shader (vk_fused_gen.h) or else of the interpreter fused_eltwise.comp; both bind the
 * program (input 0, a constant) at 0, the group's non-constant operands at 1 and 2, the
 * output at 3. */
#include "ops/fused.h"
#include "vulkan/vk_fused_gen.h"
#include "vulkan/vk_ops.h"
#include "vulkan/vk_record.h"

#include <string.h>

VKML_GPU_SUPPORTS_DECL(gpu_fused_supports)
{
    if (!vk_check_tensors(values, node, caps, true, why, why_size))
        return false;
    if (node->n_inputs < 2 || node->n_inputs > 1 + FUSED_MAX_INPUTS || node->n_outputs < 1 ||
        node->outputs[0] < 0)
        return vk_unsupported(why, why_size, "a fused group needs 1 or 2 inputs and an output");
    for (int i = 1; i < node->n_inputs; i++)
        if (node->inputs[i] < 0 || values[node->inputs[i]].dtype != VKML_DTYPE_FLOAT)
            return vk_unsupported(why, why_size, "fused group input %d is not float", i);
    if (values[node->outputs[0]].dtype != VKML_DTYPE_FLOAT)
        return vk_unsupported(why, why_size, "fused group output is not float");
    return true;
}

VKML_GPU_DECL(gpu_fused)
{
    const fused_params *fp = node->params;
    (void)values; /* the program says all */
    if (node->n_inputs < 2 || node->n_outputs < 1 || node->outputs[0] < 0 || !fp->words)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "FusedElementwise: no program");
    size_t count = fp->words[FUSED_HDR_COUNT];
    if (count == 0)
        return VKML_OK;
    int second = node->n_inputs > 2 ? node->inputs[2] : node->inputs[1];
    int bind[] = {node->inputs[0], node->inputs[1], second, node->outputs[0]};
    copy_push pc = {.count = vk_u32((int64_t)count)};
    vk_dispatch d = {
        .kernel = VK_KERNEL_FUSED_ELTWISE,
        .dtype = VKML_DTYPE_FLOAT,
        .write_mask = 1u << 3,
        .push = &pc,
        .push_size = sizeof(pc),
    };
    memcpy(d.bind, bind, sizeof(bind));
    vk_groups_1d(vk_rec_caps(rec), count, d.groups);
    vkml_status status = vk_fused_gen_pipeline(vk_rec_device(rec), fp, &d.pipeline, err);
    return status != VKML_OK ? status : vk_rec_dispatch(rec, &d, err);
}
