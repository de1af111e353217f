#include "vulkan/vk_fault.h"

#include <stdlib.h>
#include <string.h>

#define FAIL_ALLOC_ENV "VKML_TEST_FAIL_ALLOC"
#define DEVICE_LOST_ENV "VKML_TEST_DEVICE_LOST"

/* "N" or "N:D" after the kind; false when malformed. */
static bool parse_lost_args(const char *s, vk_faults *f)
{
    f->lost_nth = 1;
    f->lost_device = 0;
    if (!*s)
        return true;
    if (*s++ != ':')
        return false;
    char *end;
    f->lost_nth = strtol(s, &end, 10);
    if (end == s || f->lost_nth < 1)
        return false;
    if (!*end)
        return true;
    if (*end != ':')
        return false;
    s = end + 1;
    f->lost_device = (int)strtol(s, &end, 10);
    return end != s && !*end && f->lost_device >= 0;
}

static void parse_device_lost(vk_faults *f, const char *env)
{
    const char *rest = NULL;
    if (strncmp(env, "submit", 6) == 0) {
        f->lost_at = VK_LOST_AT_SUBMIT;
        rest = env + 6;
    } else if (strncmp(env, "wait", 4) == 0) {
        f->lost_at = VK_LOST_AT_WAIT;
        rest = env + 4;
    } else if (strncmp(env, "runwait", 7) == 0) {
        f->lost_at = VK_LOST_AT_RUN_WAIT;
        rest = env + 7;
    } else if (strncmp(env, "run", 3) == 0) {
        f->lost_at = VK_LOST_AT_RUN;
        rest = env + 3;
    }
    if (!rest || !parse_lost_args(rest, f)) {
        VKML_LOGW("%s=%s ignored: use submit|wait|run|runwait[:N[:DEVICE]]", DEVICE_LOST_ENV, env);
        f->lost_at = VK_LOST_NEVER;
        return;
    }
    VKML_LOGW("test hook: VK_ERROR_DEVICE_LOST at %s #%ld on Vulkan device %d",
              f->lost_at == VK_LOST_AT_SUBMIT     ? "submit"
              : f->lost_at == VK_LOST_AT_RUN      ? "session run submit"
              : f->lost_at == VK_LOST_AT_RUN_WAIT ? "session run wait"
                                                  : "wait",
              f->lost_nth, f->lost_device);
}

void vk_faults_init(vk_faults *f)
{
    memset(f, 0, sizeof(*f));
    atomic_init(&f->allocs, 0);
    const char *env = getenv(FAIL_ALLOC_ENV);
    if (env && *env) {
        char *end;
        f->fail_alloc_at = strtol(env, &end, 10);
        if (*end || f->fail_alloc_at < 1) {
            VKML_LOGW("%s=%s ignored: use a positive number", FAIL_ALLOC_ENV, env);
            f->fail_alloc_at = 0;
        }
    }
    if (vkml_env_flag("VKML_TEST_SYNC_CHUNKS")) {
        f->sync_chunks = true;
        VKML_LOGW("test hook: each session chunk submitted and waited for on its own");
    }
    env = getenv(DEVICE_LOST_ENV);
    if (env && *env)
        parse_device_lost(f, env);
}

VkResult vk_fault_allocate_memory(vk_device *vd, const VkMemoryAllocateInfo *info,
                                  VkDeviceMemory *out)
{
    vk_faults *f = vd->faults;
    if (f && f->fail_alloc_at) {
        long n = atomic_fetch_add_explicit(&f->allocs, 1, memory_order_relaxed) + 1;
        if (n == f->fail_alloc_at) {
            VKML_LOGW("test hook: vkAllocateMemory #%ld on '%s' fails", n, vd->base.info.name);
            return VK_ERROR_OUT_OF_DEVICE_MEMORY;
        }
    }
    return vkAllocateMemory(vd->dev, info, NULL, out);
}

/* Whether this call (the nth of `kind` on vd) must report VK_ERROR_DEVICE_LOST. */
static bool inject_lost(vk_device *vd, vk_lost_at kind, atomic_long *calls)
{
    vk_faults *f = vd->faults;
    if (!f || f->lost_at != kind || vd->base.info.index != f->lost_device)
        return false;
    return atomic_fetch_add_explicit(calls, 1, memory_order_relaxed) + 1 == f->lost_nth;
}

static VkResult mark_lost(vk_device *vd, VkResult r)
{
    if (r == VK_ERROR_DEVICE_LOST)
        atomic_store(&vd->lost, true);
    return r;
}

VkResult vk_fault_queue_submit(vk_device *vd, VkQueue queue, const VkSubmitInfo *si, uint32_t n,
                               VkFence fence, bool run)
{
    if (inject_lost(vd, VK_LOST_AT_SUBMIT, &vd->submits) ||
        (run && inject_lost(vd, VK_LOST_AT_RUN, &vd->runs))) {
        VKML_LOGW("test hook: submit on '%s' reports VK_ERROR_DEVICE_LOST", vd->base.info.name);
        return mark_lost(vd, VK_ERROR_DEVICE_LOST);
    }
    return mark_lost(vd, vkQueueSubmit(queue, n, si, fence));
}

VkResult vk_fault_after_wait(vk_device *vd, VkResult r, bool run)
{
    if (r == VK_SUCCESS && (inject_lost(vd, VK_LOST_AT_WAIT, &vd->waits) ||
                            (run && inject_lost(vd, VK_LOST_AT_RUN_WAIT, &vd->run_waits)))) {
        VKML_LOGW("test hook: wait on '%s' reports VK_ERROR_DEVICE_LOST", vd->base.info.name);
        r = VK_ERROR_DEVICE_LOST;
    }
    return mark_lost(vd, r);
}

VkResult vk_fault_wait_fence(vk_device *vd, VkFence fence, bool run)
{
    return vk_fault_after_wait(vd, vkWaitForFences(vd->dev, 1, &fence, VK_TRUE, UINT64_MAX), run);
}

vkml_status vk_device_check_lost(vk_device *vd, vkml_error *err)
{
    if (!atomic_load(&vd->lost))
        return VKML_OK;
    return vkml_fail(err, VKML_ERROR_DEVICE_LOST,
                     "Vulkan device '%s' was lost (VK_ERROR_DEVICE_LOST earlier): its sessions "
                     "are dead and must be recreated on another device or context",
                     vd->base.info.name);
}
