/* TEMPORARY: no Vulkan devices until lib/vulkan is written. The Vulkan owner deletes it. */
#include "plan/device.h"
#include <stdlib.h>
struct vk_context { int unused; };
vkml_status vk_context_create(const vkml_context_params *p, vk_context **out, vkml_error *e)
{ (void)p; (void)e; *out = calloc(1, sizeof(vk_context)); return *out ? VKML_OK : VKML_ERROR_OUT_OF_MEMORY; }
void vk_context_destroy(vk_context **vk) { if (vk) { free(*vk); *vk = NULL; } }
int vk_context_device_count(const vk_context *vk) { (void)vk; return 0; }
device *vk_context_device(vk_context *vk, int i) { (void)vk; (void)i; return NULL; }
