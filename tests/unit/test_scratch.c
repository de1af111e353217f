/* The recorder's scratch slots (vk_ops.h, vk_rec_scratch): a request that the slot's latest
 * buffer covers gets that buffer again (every split product of a chunk shares one), a
 * larger one a new buffer, which later requests then share; a slot out of range is an
 * error; the chunk takes every buffer (vk_rec_take_scratch) and frees them. On the first
 * Vulkan device (lavapipe here). */
#include "vk_testutil.h"
#include "vulkan/vk_memory.h"
#include "vulkan/vk_record.h"

int main(void)
{
    vk_context *vk = test_vk_context();
    vkml_error err = {0};
    vk_device *vd = (vk_device *)vk_context_device(vk, 0);
    gpu_recorder *rec = NULL;
    const int n_values = 3; /* scratch ids follow the session's values */
    vk_mem values[3] = {0};
    CHECK_OK(vk_rec_create(vd, values, NULL, n_values, false, &rec, &err), &err);
    int first = -1, again = -1, larger = -1, smaller = -1;
    CHECK_OK(vk_rec_scratch(rec, VK_SCRATCH_SPLITK, 4096, &first, &err), &err);
    CHECK_OK(vk_rec_scratch(rec, VK_SCRATCH_SPLITK, 1000, &again, &err), &err);
    CHECK_OK(vk_rec_scratch(rec, VK_SCRATCH_SPLITK, 1 << 20, &larger, &err), &err);
    CHECK_OK(vk_rec_scratch(rec, VK_SCRATCH_SPLITK, 8192, &smaller, &err), &err);
    CHECK(first == n_values, "the first scratch is value %d, not %d", first, n_values);
    CHECK(again == first, "a smaller request got value %d, not the slot's %d", again, first);
    CHECK(larger == n_values + 1, "a larger request got value %d, not a new %d", larger,
          n_values + 1);
    CHECK(smaller == larger, "after growing, a request got value %d, not the latest %d", smaller,
          larger);
    int bad = -1;
    vkml_status st = vk_rec_scratch(rec, VK_SCRATCH_SLOTS, 64, &bad, &err);
    CHECK(st != VKML_OK && bad == -1 && strstr(err.message, "scratch slot"),
          "slot %d accepted (status %d, value %d)", (int)VK_SCRATCH_SLOTS, (int)st, bad);
    vk_mem *mems = NULL;
    int n = 0;
    vk_rec_take_scratch(rec, &mems, &n);
    CHECK(n == 2 && mems && mems[0].size >= 4096 && mems[1].size >= (1 << 20),
          "the chunk took %d buffers (%llu, %llu bytes)", n,
          (unsigned long long)(n > 0 ? mems[0].size : 0),
          (unsigned long long)(n > 1 ? mems[1].size : 0));
    /* after the take, the slot starts again */
    int fresh = -1;
    CHECK_OK(vk_rec_scratch(rec, VK_SCRATCH_SPLITK, 100, &fresh, &err), &err);
    CHECK(fresh == n_values, "after the take, a request got value %d, not a new %d", fresh,
          n_values);
    for (int i = 0; i < n; i++)
        vk_mem_free(vd->alloc, &mems[i]);
    free(mems);
    vk_rec_destroy(&rec); /* frees the fresh one */
    vk_context_destroy(&vk);
    return test_finish("scratch slots");
}
