#pragma once
/* The CPU device: vkml's own kernels on the host's threads (the host kind of
 * device/registry.h). */
#include "device/registry.h"

device *cpu_device_create(void);
extern const device_kind cpu_device_kind;
