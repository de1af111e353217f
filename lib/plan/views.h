#pragma once
/*
 * Views: values that live inside another value's memory (device_value_plan.alias_of and
 * alias_offset), decided per device after the plan's aliases (plan.c), so that copies
 * become no-ops that the kernels skip:
 *   - a Slice or Split output that is one contiguous block of its input (channels of an
 *     image at batch 1, rows of a matrix), a Transpose that moves only dims of size 1, or
 *     a Gather of one such block (gather_block: one constant index, every dim before the
 *     axis 1), is a view of the input;
 *   - a Concat input that is one contiguous block of the output, made on the same device
 *     by a node that is not itself an alias, is a view of the output: its producer writes
 *     it in place (the C2f blocks of YOLO-style detectors, DenseNet, U-Net skips).
 * Only where the offset is a multiple of the device's view_align (and a value written in
 * place fills whole 16-byte blocks), and never for values the host touches (graph inputs
 * and outputs, transfers), constants, or values already aliased; and not for a range of
 * channels on a device that may store values channels-last (device.channels_last). The memory plan
 * gives a root the life of all its views (device/mem_plan.h). VKML_NO_VIEWS=1 turns them off (every
 * copy runs).
 */
#include "plan/plan.h"

/* Marks the views of device slot `slot`'s values. */
void plan_mark_views(plan *p, int slot);
