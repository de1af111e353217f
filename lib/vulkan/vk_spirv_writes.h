#pragma once
/*
 * Which storage buffers a kernel's SPIR-V may write: the recorder's barriers
 * (vk_record.c) rest on each dispatch's write_mask, so vk_rec_dispatch checks that mask
 * against the shader's own declarations (readonly / writeonly in shaders/common/buffers.glsl)
 * rather than trusting every lowering to spell it right.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bit b set: the buffer at set 0, binding b (b < 32) is declared writable (not NonWritable).
 * false when code is not SPIR-V this parser reads (*mask untouched). */
bool vk_spirv_written_bindings(const uint32_t *code, size_t bytes, unsigned *mask);

/* The same for a kernel variant (index into vk_spirv_table), parsed once and kept;
 * ~0u when its SPIR-V could not be read (every binding may be written). */
unsigned vk_variant_written_bindings(int variant);
