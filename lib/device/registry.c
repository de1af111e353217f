/* The device kinds vkml builds with: one line each. */
#include "device/registry.h"

#include <stdatomic.h>

#define DEVICE_KIND_LIST(X)                                                                        \
    X(cpu_device_kind)    /* lib/cpu/cpu_device.c: the host kind */                                \
    X(vulkan_device_kind) /* lib/vulkan/vk_context.c */

#define DECLARE_KIND(kind) extern const device_kind kind;
DEVICE_KIND_LIST(DECLARE_KIND)
#undef DECLARE_KIND

#define KIND_ENTRY(kind) &kind,
static const device_kind *const builtin_kinds[] = {DEVICE_KIND_LIST(KIND_ENTRY)};
#undef KIND_ENTRY

enum { N_BUILTIN_KINDS = (int)VKML_ARRAY_SIZE(builtin_kinds) };
_Static_assert(N_BUILTIN_KINDS < DEVICE_MAX_KINDS, "room for the extra kind");

/* The test kind, or NULL. Acquire/release: a kind set before a context is created is seen
 * whole by the thread that creates it. */
static _Atomic(const device_kind *) extra_kind;

const device_kind *const *device_kinds(int *n)
{
    /* One array per thread: the builtin kinds and the extra one. */
    static _Thread_local const device_kind *list[DEVICE_MAX_KINDS];
    int count = 0;
    for (int i = 0; i < N_BUILTIN_KINDS; i++)
        list[count++] = builtin_kinds[i];
    const device_kind *extra = atomic_load_explicit(&extra_kind, memory_order_acquire);
    if (extra)
        list[count++] = extra;
    *n = count;
    return list;
}

const op_host_runner *device_host_runner(void)
{
    for (int i = 0; i < N_BUILTIN_KINDS; i++)
        if (builtin_kinds[i]->host)
            return builtin_kinds[i]->host_runner;
    return NULL;
}

void device_registry_set_extra(const device_kind *kind)
{
    /* Release pairs with the acquire in device_kinds. */
    atomic_store_explicit(&extra_kind, kind, memory_order_release);
}
