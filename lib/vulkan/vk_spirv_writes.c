#include "vulkan/vk_spirv_writes.h"

#include "vk_kernels.h"

#include <stdatomic.h>
#include <stdlib.h>

/* SPIR-V facts (the specification's numbers): the magic word, the opcodes and decorations
 * read here, and the storage classes of buffers. */
enum {
    SPV_MAGIC = 0x07230203,
    SPV_HEADER_WORDS = 5,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_VARIABLE = 59,
    OP_DECORATE = 71,
    OP_MEMBER_DECORATE = 72,
    DEC_NON_WRITABLE = 24,
    DEC_BINDING = 33,
    DEC_DESCRIPTOR_SET = 34,
    SC_UNIFORM = 2,
    SC_STORAGE_BUFFER = 12,
};

/* What the parse keeps of one result id. */
typedef struct spv_id {
    int32_t binding, set;     /* of a variable: -1 undecorated */
    uint32_t pointee;         /* of a pointer type; of a variable: its pointer type */
    uint32_t members, frozen; /* of a struct: its members, those decorated NonWritable */
    bool non_writable;        /* of a variable: decorated NonWritable itself */
    bool buffer;              /* a variable of the Uniform or StorageBuffer class */
} spv_id;

bool vk_spirv_written_bindings(const uint32_t *code, size_t bytes, unsigned *mask)
{
    size_t n = bytes / 4;
    if (!code || n < SPV_HEADER_WORDS || code[0] != SPV_MAGIC || code[3] == 0 ||
        code[3] > (1u << 22))
        return false;
    uint32_t bound = code[3];
    spv_id *ids = calloc(bound, sizeof(*ids));
    if (!ids)
        return false;
    for (uint32_t i = 0; i < bound; i++)
        ids[i].binding = ids[i].set = -1;
    bool ok = true;
    for (size_t at = SPV_HEADER_WORDS; at < n;) {
        uint32_t count = code[at] >> 16, op = code[at] & 0xffffu;
        if (count == 0 || at + count > n) {
            ok = false;
            break;
        }
        const uint32_t *w = code + at;
        if (count >= 3 && w[1] < bound) {
            spv_id *t = &ids[w[1]];
            if (op == OP_DECORATE && w[2] == DEC_NON_WRITABLE)
                t->non_writable = true;
            else if (op == OP_DECORATE && count >= 4 && w[2] == DEC_BINDING)
                t->binding = (int32_t)w[3];
            else if (op == OP_DECORATE && count >= 4 && w[2] == DEC_DESCRIPTOR_SET)
                t->set = (int32_t)w[3];
            else if (op == OP_MEMBER_DECORATE && count >= 4 && w[3] == DEC_NON_WRITABLE)
                t->frozen++;
            else if (op == OP_TYPE_STRUCT)
                t->members = count - 2;
            else if (op == OP_TYPE_POINTER && count >= 4)
                t->pointee = w[3];
        }
        if (op == OP_VARIABLE && count >= 4 && w[2] < bound && w[1] < bound) {
            ids[w[2]].pointee = w[1];
            ids[w[2]].buffer = w[3] == SC_UNIFORM || w[3] == SC_STORAGE_BUFFER;
        }
        at += count;
    }
    unsigned written = 0;
    for (uint32_t i = 0; ok && i < bound; i++) {
        const spv_id *v = &ids[i];
        if (!v->buffer || v->set != 0 || v->binding < 0 || v->binding >= 32 || v->non_writable)
            continue;
        uint32_t pointer = v->pointee;
        uint32_t block = pointer < bound ? ids[pointer].pointee : 0;
        /* a block whose every member is NonWritable is read only (readonly buffer) */
        if (block < bound && ids[block].members > 0 && ids[block].frozen >= ids[block].members)
            continue;
        written |= 1u << v->binding;
    }
    free(ids);
    if (ok)
        *mask = written;
    return ok;
}

unsigned vk_variant_written_bindings(int variant)
{
    /* 0: not parsed yet; else the mask with bit 31 set (no kernel binds 32 buffers) */
    static atomic_uint kept[VK_VARIANT_COUNT];
    if (variant < 0 || variant >= VK_VARIANT_COUNT)
        return ~0u;
    unsigned mask = atomic_load_explicit(&kept[variant], memory_order_relaxed);
    if (mask == 0) {
        const vk_spirv *sp = &vk_spirv_table[variant];
        if (!vk_spirv_written_bindings(sp->code, sp->size, &mask))
            mask = ~0u;
        mask |= 1u << 31;
        atomic_store_explicit(&kept[variant], mask, memory_order_relaxed);
    }
    return mask & ~(1u << 31);
}
