/* Running a Vulkan session's chunks (vk_session.h): submission, waits on their fences and
 * the per-node times of profiled chunks. */
#include "vulkan/vk_session.h"
#include "vulkan/vk_transfer.h"

#include <sched.h>
#include <stdlib.h>

/* Submits the chunk's command buffer behind what the queue holds (its begin barrier orders
 * it after earlier chunks' writes); under the VKML_TEST_SYNC_CHUNKS hook, submits and waits. */
vkml_status vk_session_submit(device_session *s, int chunk, device_event *done, vkml_error *err)
{
    *done = (device_event){0};
    if (chunk < 0 || chunk >= s->n_chunks)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "Vulkan: no chunk %d", chunk);
    vkml_status st;
    vk_chunk *c = &s->chunks[chunk];
    vk_submit what = {.copy_in = c->copy_in,
                      .copied_in = c->copied_in,
                      .cmd = c->cmd,
                      .computed = c->computed,
                      .copy_out = c->copy_out};
    if (s->vd->queued_chunks) {
        int next = 1 - c->cur;
        /* Not reset by a wait (a chunk the host does not wait for, or a failed run): that
         * submit is done (its run waited for a later fence of this queue), but the
         * fence's own signal may trail: wait for it before the reset. */
        if (c->pending[next]) {
            VkResult r = vkWaitForFences(s->vd->dev, 1, &c->fences[next], VK_TRUE, UINT64_MAX);
            if (r == VK_SUCCESS)
                r = vkResetFences(s->vd->dev, 1, &c->fences[next]);
            if (r != VK_SUCCESS)
                return vk_result_fail(err, r, "vkWaitForFences/vkResetFences", __FILE__, __LINE__);
            c->pending[next] = false;
        }
        c->submit_ns = vkml_now_ns();
        st = vk_stream_submit(s->vd, &what, c->fences[next], true, err);
        if (st == VKML_OK) {
            c->pending[next] = true;
            c->cur = next;
            /* the event is the chunk: its current fence and its wait hint */
            *done = (device_event){.dev = &s->vd->base, .value = (uint64_t)(uintptr_t)c};
        }
    } else {
        st = vk_submit_wait(s->vd, &what, c->fences[0], true, err);
    }
    if (st != VKML_OK)
        vkml_error_prefix(err, "running chunk %d on '%s'", chunk, s->vd->base.info.name);
    return st;
}

vkml_status vk_session_node_times(device_session *s, int chunk, double *node_us, vkml_error *err)
{
    if (chunk < 0 || chunk >= s->n_chunks || !s->chunks[chunk].timestamps)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT, "Vulkan: chunk %d is not profiled",
                         chunk);
    vk_chunk *c = &s->chunks[chunk];
    uint64_t stamps[257], *t = c->n_nodes < 256 ? stamps : calloc((size_t)c->n_nodes + 1, 8);
    if (!t)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "Vulkan: out of host memory");
    VkResult r = vkGetQueryPoolResults(s->vd->dev, c->timestamps, 0, (uint32_t)c->n_nodes + 1,
                                       sizeof(uint64_t) * ((size_t)c->n_nodes + 1), t,
                                       sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
    uint64_t mask =
        s->vd->caps.timestamp_bits >= 64 ? UINT64_MAX : (1ull << s->vd->caps.timestamp_bits) - 1;
    for (int k = 0; r == VK_SUCCESS && k < c->n_nodes; k++)
        node_us[k] = (double)((t[k + 1] - t[k]) & mask) * s->vd->props.limits.timestampPeriod / 1e3;
    if (t != stamps)
        free(t);
    if (r == VK_NOT_READY)
        return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                         "Vulkan: chunk %d has not completed a run since it was recorded", chunk);
    return r == VK_SUCCESS ? VKML_OK
                           : vk_result_fail(err, r, "vkGetQueryPoolResults", __FILE__, __LINE__);
}

/* A thread about to poll the device while on the CPU that services its interrupts leaves
 * that CPU for good (vkml_context_params.keep_thread_affinity says why), unless told not
 * to. One sched_getcpu a wait otherwise. */
static void leave_irq_cpu(const vk_device *vd)
{
    int cpu = vd->base.info.irq_cpu;
    if (cpu < 0 || vd->keep_affinity || sched_getcpu() != cpu)
        return;
    if (vkml_thread_avoid_cpu(cpu))
        VKML_LOGD("Vulkan device '%s': a thread polling it left CPU %d, its interrupts' CPU",
                  vd->base.info.name, cpu);
}

vkml_status vk_event_wait(device_event ev, uint64_t spin_ns, vkml_error *err)
{
    vk_device *vd = (vk_device *)ev.dev;
    /* A CPU implementation of Vulkan (lavapipe) runs the work on the cores a poll takes, and
     * its polls slow it down (mnist-8: 3.8 ms a run without, 5.8 ms with 5 us of polling). */
    if (spin_ns == DEVICE_SPIN_DEFAULT)
        spin_ns = vd->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
                      ? 0
                      : (uint64_t)VKML_DEFAULT_WAIT_SPIN_US * 1000;
    if (spin_ns)
        leave_irq_cpu(vd);
    vk_chunk *c = (vk_chunk *)(uintptr_t)ev.value;
    /* The chunk's other fence, from its previous submit (done long since, as a rule):
     * reset now, while the GPU runs this one, rather than on the next submit's path
     * (mnist-8: see docs/performance.md). Left for the submit if it has not signalled. */
    int other = 1 - c->cur;
    if (c->pending[other] && vkGetFenceStatus(vd->dev, c->fences[other]) == VK_SUCCESS &&
        vkResetFences(vd->dev, 1, &c->fences[other]) == VK_SUCCESS)
        c->pending[other] = false;
    vk_wait_hint hint = {.submit_ns = c->submit_ns, .expect_ns = &c->expect_ns};
    vkml_status st = vk_stream_wait(vd, c->fences[c->cur], spin_ns, &hint, err);
    if (st != VKML_OK)
        vkml_error_prefix(err, "waiting for '%s'", vd->base.info.name);
    return st;
}
