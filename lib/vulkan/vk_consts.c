/* The device's shared constant buffers (vk_consts.h). */
#include "vulkan/vk_consts.h"

#include <stdlib.h>

vk_const *vk_const_find(vk_device *vd, const void *data, VkDeviceSize size, vk_const_layout layout)
{
    for (vk_const *c = vd->consts; c; c = c->next)
        if (c->data == data && c->size == size && c->layout == layout) {
            c->refs++;
            return c;
        }
    return NULL;
}

vkml_status vk_const_add(vk_device *vd, const void *data, VkDeviceSize size, vk_const_layout layout,
                         vk_const **out, vkml_error *err)
{
    vk_const *c = calloc(1, sizeof(*c));
    if (!c)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    vkml_status st = vk_mem_alloc(vd->alloc, VK_MEM_DEVICE, size, &c->mem, err);
    if (st != VKML_OK) {
        free(c);
        return st;
    }
    c->data = data;
    c->size = size;
    c->layout = layout;
    c->refs = 1;
    c->next = vd->consts;
    vd->consts = c;
    *out = c;
    return VKML_OK;
}

void vk_const_release(vk_device *vd, const vk_mem *mem)
{
    for (vk_const **p = &vd->consts; *p; p = &(*p)->next) {
        vk_const *c = *p;
        if (c->mem.buffer != mem->buffer || c->mem.offset != mem->offset)
            continue;
        if (--c->refs == 0) {
            *p = c->next;
            vk_mem_free(vd->alloc, &c->mem);
            free(c);
        }
        return;
    }
}
