#pragma once
/* float16 (IEEE binary16) and bfloat16 <-> float32 conversions. Float to half rounds to
 * nearest even; infinities, NaNs (quieted, sign kept) and subnormals convert exactly
 * where the target can hold them. Thread-safe (pure functions). */
#include <stdint.h>

float vkml_half_to_float(uint16_t h);
uint16_t vkml_float_to_half(float f);
float vkml_bfloat16_to_float(uint16_t b);
uint16_t vkml_float_to_bfloat16(float f);
