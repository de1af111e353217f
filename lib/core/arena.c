#include "core/common.h"

#include <stdlib.h>
#include <string.h>

/* Blocks of at least ARENA_BLOCK_BYTES; bigger requests get a block of their own. */
#define ARENA_BLOCK_BYTES (64 * 1024)
#define ARENA_ALIGN 16

typedef struct arena_block {
    struct arena_block *next;
    size_t used, capacity;
    _Alignas(ARENA_ALIGN) unsigned char data[];
} arena_block;

struct vkml_arena {
    arena_block *head;
};

vkml_arena *vkml_arena_create(void)
{
    return calloc(1, sizeof(vkml_arena));
}

void vkml_arena_destroy(vkml_arena **arena)
{
    if (!arena || !*arena)
        return;
    arena_block *b = (*arena)->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(*arena);
    *arena = NULL;
}

void *vkml_arena_alloc(vkml_arena *arena, size_t size)
{
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0)
        size = ARENA_ALIGN;
    arena_block *b = arena->head;
    if (!b || b->capacity - b->used < size) {
        size_t capacity = size > ARENA_BLOCK_BYTES ? size : ARENA_BLOCK_BYTES;
        if (capacity > SIZE_MAX - sizeof(arena_block))
            return NULL;
        b = malloc(sizeof(arena_block) + capacity);
        if (!b)
            return NULL;
        b->used = 0;
        b->capacity = capacity;
        /* A private oversized block goes second so the current block keeps filling. */
        if (size > ARENA_BLOCK_BYTES && arena->head) {
            b->next = arena->head->next;
            arena->head->next = b;
        } else {
            b->next = arena->head;
            arena->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

void *vkml_arena_calloc(vkml_arena *arena, size_t count, size_t size)
{
    size_t total;
    if (!vkml_mul_size(count, size, &total))
        return NULL;
    return vkml_arena_alloc(arena, total);
}

char *vkml_arena_strndup(vkml_arena *arena, const char *s, size_t n)
{
    char *p = vkml_arena_alloc(arena, n + 1);
    if (p) {
        if (n) /* s may be NULL for an empty string (protobuf-c's empty bytes) */
            memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

char *vkml_arena_strdup(vkml_arena *arena, const char *s)
{
    return vkml_arena_strndup(arena, s ? s : "", s ? strlen(s) : 0);
}

void *vkml_arena_memdup(vkml_arena *arena, const void *p, size_t size)
{
    void *q = vkml_arena_alloc(arena, size);
    if (q && size)
        memcpy(q, p, size);
    return q;
}
