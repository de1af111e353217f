#pragma once
/*
 * Generated shaders for fused elementwise groups (ops/fused.h): per group, GLSL with the
 * program unrolled into straight-line code (each instruction one call of fused_apply.glsl's
 * fused_<ID>() with constant parameters, on local float variables; the output's
 * shape, the operands' strides and constants inlined as literals), compiled with libshaderc
 * when the session is created and cached per device by source text (vk_pipeline_generated).
 * Same bindings and push constants as the interpreter kernel (fused_eltwise.comp), which
 * runs the group instead when libshaderc is missing, VKML_FUSED_INTERPRETER=1, the program
 * is beyond the bounds below, or compilation fails (logged at debug level).
 */
#include "ops/fused.h"
#include "vulkan/vk_device.h"

/* Bounds on what is generated (beyond them the interpreter runs the group). */
#define VK_FUSED_GEN_MAX_INSTRS 4096
#define VK_FUSED_GEN_MAX_SOURCE (512 * 1024)

/* The text of a GLSL include file, embedded at build time (shaders/embed_glsl.py). */
typedef struct vk_glsl_include {
    const char *name;
    const char *text;
} vk_glsl_include;
extern const vk_glsl_include vk_glsl_includes[];
extern const int vk_glsl_n_includes;

/* The generated GLSL of a program into buf; false when the program is malformed or beyond
 * the bounds. */
bool vk_fused_gen_source(const uint32_t *words, size_t n_words, char *buf, size_t size);

/* The pipeline of the group's generated shader (compiled now or from the device's cache);
 * VK_NULL_HANDLE with VKML_OK when the interpreter must run the group. */
vkml_status vk_fused_gen_pipeline(vk_device *vd, const fused_params *fp, VkPipeline *out,
                                  vkml_error *err);

/* Whether this build compiles generated shaders (built with libshaderc). */
bool vk_fused_gen_available(void);

/* Process-wide tallies since start (tests, benchmarks). */
typedef struct vk_fused_gen_stats {
    long compiled;    /* groups whose shader was compiled */
    long cached;      /* groups that found their pipeline in the cache */
    long interpreted; /* groups left to the interpreter */
    long compile_us;  /* total time spent compiling (shaderc and pipeline creation) */
} vk_fused_gen_stats;
void vk_fused_gen_stats_get(vk_fused_gen_stats *out);
