/*
 * Build-time checks of shaders/common/push.h: every push block's C struct has the layout
 * GLSL gives the same block. push.h allows only 32-bit members, arrays of them and structs
 * of them, which std430 (the push blocks' layout) places at consecutive multiples of 4
 * bytes, no gaps. push.h is expanded three more times here:
 *
 *   1. each block as a twin of byte arrays (`struct name_packed`): its members' offsets
 *      are exactly those consecutive multiples, since bytes need no alignment;
 *   2. each block as a function of static asserts: every member's offset in the C struct
 *      is its offset in the twin, and the sizes agree (no padding, no member moved);
 *   3. each block without the members marked as past the minimum (VKML_PUSH_CHECK_MIN),
 *      as a twin again (`struct name_min`), within the 128 bytes every Vulkan device takes
 *      (VKML_PUSH_MIN_BYTES).
 * (3 is expanded before 2, so that it reuses 1's member macros.)
 */
#include "vulkan/vk_common.h"

#include "push.h" /* the C structs */

#include <stddef.h>

#define VKML_PUSH_CHECK
#undef PUSH_BEGIN
#undef PUSH_END
#undef PUSH_TYPE_BEGIN
#undef PUSH_TYPE_END
#undef PUSH_U32
#undef PUSH_U32S
#undef PUSH_F32
#undef PUSH_F32S
#undef PUSH_STRUCT

/* 1. the std430 twins (PUSH_TWIN: name_packed), each checked by PUSH_TWIN_CHECK */
#define PUSH_BEGIN(name) struct PUSH_TWIN(name) {
#define PUSH_END(name)                                                                             \
    }                                                                                              \
    ;                                                                                              \
    PUSH_TWIN_CHECK(name)
#define PUSH_TYPE_BEGIN PUSH_BEGIN
#define PUSH_TYPE_END PUSH_END
#define PUSH_U32(f) unsigned char f[4];
#define PUSH_U32S(f, n) unsigned char f[4 * (n)];
#define PUSH_F32 PUSH_U32
#define PUSH_F32S PUSH_U32S
#define PUSH_STRUCT(type, f) struct type##_packed f;
#define PUSH_TWIN(name) name##_packed
#define PUSH_TWIN_CHECK(name)
#undef VKML_PUSH_H
#include "push.h"

/* 3. the 128-byte minimum: twins (name_min) without the members past it */
#undef PUSH_TWIN
#undef PUSH_TWIN_CHECK
#define VKML_PUSH_CHECK_MIN
#define PUSH_TWIN(name) name##_min
#define PUSH_TWIN_CHECK(name)                                                                      \
    _Static_assert(sizeof(struct name##_min) <= VKML_PUSH_MIN_BYTES,                               \
                   #name ": past the 128 push-constant bytes every device takes");
#undef VKML_PUSH_H
#include "push.h"
#undef VKML_PUSH_CHECK_MIN

/* 2. offsets and sizes */
#undef PUSH_BEGIN
#undef PUSH_END
#undef PUSH_U32
#undef PUSH_U32S
#undef PUSH_STRUCT
#define PUSH_BEGIN(name)                                                                           \
    static inline void name##_layout_check(void)                                                   \
    {                                                                                              \
        typedef name c_layout;                                                                     \
        typedef struct name##_packed std430_layout;                                                \
        _Static_assert(sizeof(c_layout) == sizeof(std430_layout), #name ": C pads the block");
#define PUSH_END(name) }
#define PUSH_OFFSET_CHECK(f)                                                                       \
    _Static_assert(offsetof(c_layout, f) == offsetof(std430_layout, f),                            \
                   #f ": C and GLSL place it apart");
#define PUSH_U32(f) PUSH_OFFSET_CHECK(f)
#define PUSH_U32S(f, n) PUSH_OFFSET_CHECK(f)
#define PUSH_STRUCT(type, f) PUSH_OFFSET_CHECK(f)
#undef VKML_PUSH_H
#include "push.h"

/* A product's block with split-K's members appended (vk_rec_gemm_split). */
_Static_assert(sizeof(matmul_push) + sizeof(gemm_split_push) <= VKML_PUSH_MIN_BYTES,
               "matmul_push and split-K's members past 128 bytes");
_Static_assert(sizeof(conv_gemm_push) + sizeof(gemm_split_push) <= VKML_PUSH_MIN_BYTES,
               "conv_gemm_push and split-K's members past 128 bytes");
/* The block the pipelines declare holds every block. */
_Static_assert(sizeof(resize_push) <= VK_PUSH_CONSTANT_MAX, "resize_push past the layout");
