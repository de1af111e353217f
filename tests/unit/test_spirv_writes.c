/* The buffers each kernel's SPIR-V declares writable (vk_spirv_writes.c), which
 * vk_rec_dispatch holds every dispatch's write_mask to: read for every variant built here,
 * including the cooperative-matrix ones lavapipe never runs. Every kernel writes its last
 * binding and only it, but for those listed below, whose lowerings dispatch with their
 * own write_mask (vk_dispatch); a dtype's variant never differs from another's. The parser
 * refuses what is not SPIR-V (wrong magic, an instruction past the end). */
#include "core/common.h"
#include "testutil.h"
#include "vulkan/vk_spirv_writes.h"

#include "vk_kernels.h"

#include <string.h>

/* Kernels writing more than their last binding, as their lowerings mark them. */
static const struct {
    const char *name;
    unsigned writes;
} several[] = {
    {"maxpool_indices", 0x6},       /* ops_pool.c: Y and the indices */
    {"topk", 0x6},                  /* ops_reduce.c: values and indices */
    {"topk_tiled", 0x6},            /* the same */
    {"gemm_splitk_sum_norm", 0x10}, /* ops_gemm.c: Y, before the norm's bias */
    {"dynquant_range", 0x6},        /* ops_quant.c: scale and zero point */
};

static unsigned expected(int k)
{
    for (size_t i = 0; i < VKML_ARRAY_SIZE(several); i++)
        if (strcmp(several[i].name, vk_kernels[k].name) == 0)
            return several[i].writes;
    return 1u << (vk_kernels[k].n_bindings - 1);
}

static void kernels(void)
{
    int read = 0;
    for (int k = 0; k < VK_KERNEL_COUNT; k++) {
        int first = -1;
        unsigned first_mask = 0;
        for (int slot = 0; slot < VK_DTYPE_SLOTS; slot++) {
            int v = vk_kernel_variant((vk_kernel_id)k, slot);
            if (v < 0)
                continue;
            unsigned mask = 0;
            const vk_spirv *sp = &vk_spirv_table[v];
            bool ok = vk_spirv_written_bindings(sp->code, sp->size, &mask);
            CHECK(ok, "%s: its SPIR-V not read", sp->name);
            CHECK(vk_variant_written_bindings(v) == (ok ? mask : 0x7fffffffu),
                  "%s: the kept mask differs from the parse", sp->name);
            read++;
            if (first < 0) {
                first = v;
                first_mask = mask;
                CHECK(mask == expected(k),
                      "%s declares bindings 0x%x writable, its lowering marks 0x%x written "
                      "(list it in `several` with the write_mask its vk_dispatch gives)",
                      vk_kernels[k].name, mask, expected(k));
            } else {
                CHECK(mask == first_mask, "%s writes 0x%x, %s 0x%x", sp->name, mask,
                      vk_spirv_table[first].name, first_mask);
            }
        }
    }
    printf("%d variants of %d kernels read\n", read, (int)VK_KERNEL_COUNT);
    CHECK(read >= VK_KERNEL_COUNT / 2, "only %d variants read", read);
}

static void refusals(void)
{
    /* a variant's words with the magic changed, then with its last instruction cut */
    const vk_spirv *sp = &vk_spirv_table[0];
    size_t words = sp->size / 4;
    uint32_t *copy = malloc(sp->size);
    CHECK(copy != NULL, "out of memory");
    if (!copy)
        return;
    memcpy(copy, sp->code, sp->size);
    unsigned mask = 0x55;
    copy[0] ^= 1u;
    CHECK(!vk_spirv_written_bindings(copy, sp->size, &mask) && mask == 0x55,
          "a wrong magic word was read");
    copy[0] ^= 1u;
    size_t last = 5;
    for (size_t at = 5; at < words && (copy[at] >> 16) > 0; at += copy[at] >> 16)
        last = at;
    copy[last] = (copy[last] & 0xffffu) | ((uint32_t)(words - last + 1) << 16);
    CHECK(!vk_spirv_written_bindings(copy, sp->size, &mask) && mask == 0x55,
          "an instruction past the end was read");
    CHECK(!vk_spirv_written_bindings(copy, 12, &mask), "a header alone was read");
    free(copy);
}

int main(void)
{
    kernels();
    refusals();
    return test_finish("SPIR-V writable bindings");
}
