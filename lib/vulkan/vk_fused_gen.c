#include "vulkan/vk_fused_gen.h"
#include "vulkan/vk_pipeline.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef VKML_HAVE_SHADERC
#include <shaderc/shaderc.h>
#endif

#define INTERPRETER_ENV "VKML_FUSED_INTERPRETER"

static atomic_long n_compiled, n_cached, n_interpreted, compile_us;

bool vk_fused_gen_available(void)
{
#ifdef VKML_HAVE_SHADERC
    return true;
#else
    return false;
#endif
}

void vk_fused_gen_stats_get(vk_fused_gen_stats *out)
{
    out->compiled = atomic_load(&n_compiled);
    out->cached = atomic_load(&n_cached);
    out->interpreted = atomic_load(&n_interpreted);
    out->compile_us = atomic_load(&compile_us);
}

/* Appends to a bounded text; a full buffer sets *ok false. */
typedef struct text {
    char *buf;
    size_t size, len;
    bool ok;
} text;

static void put(text *t, const char *fmt, ...)
{
    if (!t->ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->size - t->len)
        t->ok = false;
    else
        t->len += (size_t)n;
}

/* A float as a bit-exact GLSL expression. */
static void put_float_bits(text *t, uint32_t bits)
{
    if (bits == 0)
        put(t, "0.0");
    else
        put(t, "uintBitsToFloat(0x%08xu)", bits);
}

typedef struct program {
    const uint32_t *w;
    size_t n_words;
    uint32_t n_instrs, n_operands, rank, count;
    const uint32_t *dims;
    size_t instrs; /* word of the first instruction */
} program;

static bool read_header(const uint32_t *w, size_t n_words, program *pg)
{
    if (!w || n_words < FUSED_HDR_WORDS)
        return false;
    *pg = (program){
        .w = w,
        .n_words = n_words,
        .n_instrs = w[FUSED_HDR_N_INSTRS],
        .n_operands = w[FUSED_HDR_N_OPERANDS],
        .rank = w[FUSED_HDR_RANK],
        .count = w[FUSED_HDR_COUNT],
        .dims = w + FUSED_HDR_DIMS,
    };
    if (pg->rank > FUSED_MAX_RANK || pg->n_instrs == 0 || pg->n_instrs > VK_FUSED_GEN_MAX_INSTRS ||
        pg->n_operands > FUSED_REF_OPERAND)
        return false;
    pg->instrs = FUSED_HDR_WORDS + (size_t)pg->n_operands * FUSED_OPERAND_WORDS;
    if (pg->instrs + (size_t)pg->n_instrs * FUSED_INSTR_WORDS > n_words)
        return false;
    for (uint32_t d = 0; d < pg->rank; d++)
        if (pg->dims[d] == 0)
            return false;
    return true;
}

/* Operand k's element offset at the output element i (coordinates c<d>). */
static bool put_offset(text *t, const program *pg, uint32_t k)
{
    const uint32_t *op = pg->w + FUSED_HDR_WORDS + (size_t)k * FUSED_OPERAND_WORDS;
    uint32_t base = op[FUSED_OPERAND_BASE];
    const uint32_t *strides = op + FUSED_OPERAND_STRIDES;
    bool dense = base == 0;
    uint64_t step = 1;
    for (int d = (int)pg->rank - 1; d >= 0; d--) {
        if (pg->dims[d] > 1 && strides[d] != step)
            dense = false;
        step *= pg->dims[d];
    }
    if (dense) {
        put(t, "i");
        return true;
    }
    put(t, "%uu", base);
    for (uint32_t d = 0; d < pg->rank; d++)
        if (pg->dims[d] > 1 && strides[d] != 0)
            put(t, " + c%u * %uu", d, strides[d]);
    return true;
}

/* `float o<k> = ...;` for operand k (a literal when it is one constant element). */
static bool put_operand(text *t, const program *pg, uint32_t k)
{
    const uint32_t *op = pg->w + FUSED_HDR_WORDS + (size_t)k * FUSED_OPERAND_WORDS;
    uint32_t src = op[FUSED_OPERAND_SRC];
    bool scalar = true;
    for (uint32_t d = 0; d < pg->rank; d++)
        if (pg->dims[d] > 1 && op[FUSED_OPERAND_STRIDES + d] != 0)
            scalar = false;
    put(t, "    float o%u = ", k);
    if (src == FUSED_SRC_CONST && scalar) {
        if (op[FUSED_OPERAND_BASE] >= pg->n_words)
            return false;
        put_float_bits(t, pg->w[op[FUSED_OPERAND_BASE]]);
    } else {
        if (src > FUSED_SRC_INPUT1)
            return false;
        put(t, src == FUSED_SRC_CONST    ? "uintBitsToFloat(prog["
               : src == FUSED_SRC_INPUT0 ? "float(in0["
                                         : "float(in1[");
        put_offset(t, pg, k);
        put(t, "])");
    }
    put(t, ";\n");
    return true;
}

/* Source s of the instruction at word `at`, as fetch() of fused_eltwise.comp reads it. */
static bool put_source(text *t, const program *pg, size_t at, int s, bool *used)
{
    uint32_t ref = pg->w[at + FUSED_INSTR_SRC + s];
    if (ref < FUSED_REF_OPERAND) {
        if (ref >= FUSED_MAX_REGS)
            return false;
        put(t, "r%u", ref);
    } else if (ref >= FUSED_REF_IMM) {
        if (ref - FUSED_REF_IMM > 2)
            return false;
        put_float_bits(t, pg->w[at + FUSED_INSTR_ALPHA + (ref - FUSED_REF_IMM)]);
    } else {
        uint32_t k = ref - FUSED_REF_OPERAND;
        if (k >= pg->n_operands)
            return false;
        used[k] = true;
        put(t, "o%u", k);
    }
    return true;
}

bool vk_fused_gen_source(const uint32_t *words, size_t n_words, char *buf, size_t size)
{
    program pg;
    if (!buf || size == 0 || !read_header(words, n_words, &pg))
        return false;
    bool *used = calloc(pg.n_operands + 1, sizeof(*used));
    char *body = malloc(size);
    if (!used || !body) {
        free(used);
        free(body);
        return false;
    }
    /* The instructions first (they say which operands are read). */
    text b = {.buf = body, .size = size, .ok = true};
    uint32_t dst = 0;
    bool ok = true;
    for (uint32_t k = 0; k < pg.n_instrs && ok; k++) {
        size_t at = pg.instrs + (size_t)k * FUSED_INSTR_WORDS;
        eltwise_op op = (eltwise_op)pg.w[at + FUSED_INSTR_OP];
        int arity = eltwise_fused_arity(op);
        dst = pg.w[at + FUSED_INSTR_DST];
        if (arity == 0 || dst >= FUSED_MAX_REGS) {
            ok = false;
            break;
        }
        put(&b, "    r%u = fused_%s(", dst, eltwise_op_id(op));
        ok = put_source(&b, &pg, at, 0, used);
        put(&b, ", ");
        if (arity == 2)
            ok = ok && put_source(&b, &pg, at, 1, used);
        else
            put(&b, "0.0");
        for (int f = FUSED_INSTR_ALPHA; f <= FUSED_INSTR_GAMMA; f++) {
            put(&b, ", ");
            put_float_bits(&b, pg.w[at + f]);
        }
        put(&b, ");\n");
    }
    text t = {.buf = buf, .size = size, .ok = true};
    put(&t, "#version 450\n// generated by lib/vulkan/vk_fused_gen.c\n"
            "#include \"fused_bindings.glsl\"\n\nvoid main()\n{\n"
            "    uint i = flat_index();\n    if (i >= p.count)\n        return;\n"
            "    uint rest = i;\n");
    for (int d = (int)pg.rank - 1; d >= 0; d--)
        put(&t, "    uint c%d = rest %% %uu;\n    rest /= %uu;\n", d, pg.dims[d], pg.dims[d]);
    for (uint32_t k = 0; k < pg.n_operands && ok; k++)
        if (used[k])
            ok = put_operand(&t, &pg, k);
    put(&t, "    float");
    for (int r = 0; r < FUSED_MAX_REGS; r++)
        put(&t, "%s r%d = 0.0", r ? "," : "", r);
    put(&t, ";\n%s    y[i] = T(r%u);\n}\n", b.ok ? body : "", dst);
    free(used);
    free(body);
    return ok && b.ok && t.ok;
}

#ifdef VKML_HAVE_SHADERC
static shaderc_include_result *include_resolve(void *user, const char *requested, int type,
                                               const char *requesting, size_t depth)
{
    (void)user, (void)type, (void)requesting, (void)depth;
    shaderc_include_result *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    for (int i = 0; i < vk_glsl_n_includes; i++) {
        if (strcmp(vk_glsl_includes[i].name, requested) == 0) {
            r->source_name = vk_glsl_includes[i].name;
            r->source_name_length = strlen(r->source_name);
            r->content = vk_glsl_includes[i].text;
            r->content_length = strlen(r->content);
            return r;
        }
    }
    r->source_name = "";
    r->content = "no such include in the embedded GLSL (shaders/meson.build)";
    r->content_length = strlen(r->content);
    return r;
}

static void include_release(void *user, shaderc_include_result *r)
{
    (void)user;
    free(r);
}

static vkml_status compile_glsl(const char *source, uint32_t **spirv, size_t *bytes,
                                vkml_error *err)
{
    vkml_status status = VKML_OK;
    shaderc_compiler_t compiler = shaderc_compiler_initialize();
    shaderc_compile_options_t opts = shaderc_compile_options_initialize();
    shaderc_compilation_result_t res = NULL;
    if (!compiler || !opts) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "libshaderc: cannot initialize");
        goto done;
    }
    /* As shaders/meson.build compiles the kernels (glslc_args, the float variant). */
    shaderc_compile_options_add_macro_definition(opts, "VKML_GLSL", 9, "1", 1);
    shaderc_compile_options_add_macro_definition(opts, "DTYPE_F32", 9, "1", 1);
    shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_1);
    /* No spirv-opt: its passes grow faster than linearly with the program (12 s for 1,000
     * Adds against 0.1 s unoptimised); the driver inlines and folds the straight-line code. */
    shaderc_compile_options_set_optimization_level(opts, shaderc_optimization_level_zero);
    shaderc_compile_options_set_warnings_as_errors(opts);
    shaderc_compile_options_set_include_callbacks(opts, include_resolve, include_release, NULL);
    res = shaderc_compile_into_spv(compiler, source, strlen(source), shaderc_compute_shader,
                                   "fused_group.comp", "main", opts);
    if (!res || shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
        status = vkml_fail(err, VKML_ERROR_DEVICE, "libshaderc: %s",
                           res ? shaderc_result_get_error_message(res) : "no result");
        goto done;
    }
    *bytes = shaderc_result_get_length(res);
    *spirv = malloc(*bytes ? *bytes : 1);
    if (!*spirv) {
        status = vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "libshaderc: out of host memory");
        goto done;
    }
    memcpy(*spirv, shaderc_result_get_bytes(res), *bytes);
done:
    if (res)
        shaderc_result_release(res);
    if (opts)
        shaderc_compile_options_release(opts);
    if (compiler)
        shaderc_compiler_release(compiler);
    return status;
}
#endif

static long now_us(void)
{
    return (long)(vkml_now_ns() / 1000);
}

vkml_status vk_fused_gen_pipeline(vk_device *vd, const fused_params *fp, VkPipeline *out,
                                  vkml_error *err)
{
    *out = VK_NULL_HANDLE;
#ifdef VKML_HAVE_SHADERC
    const char *env = getenv(INTERPRETER_ENV);
    if (env && strcmp(env, "1") == 0) {
        atomic_fetch_add(&n_interpreted, 1);
        return VKML_OK;
    }
    char *source = malloc(VK_FUSED_GEN_MAX_SOURCE);
    if (!source)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "fused group: out of host memory");
    if (!vk_fused_gen_source(fp->words, fp->n_words, source, VK_FUSED_GEN_MAX_SOURCE)) {
        VKML_LOGD("fused group '%s': %d instructions, beyond the generated shaders' bounds; "
                  "interpreted",
                  fp->summary ? fp->summary : "?", fp->n_instrs);
        free(source);
        atomic_fetch_add(&n_interpreted, 1);
        return VKML_OK;
    }
    long t0 = now_us();
    bool compiled = false;
    vkml_error why = {0};
    vkml_status status =
        vk_pipeline_generated(vd->pipes, source, compile_glsl, out, &compiled, &why);
    free(source);
    if (compiled) {
        long us = now_us() - t0;
        atomic_fetch_add(&compile_us, us);
        VKML_LOGD("fused group of %d instructions: shader generated and compiled in %.1f ms",
                  fp->n_instrs, us / 1000.0);
    }
    if (status == VKML_ERROR_OUT_OF_MEMORY)
        return vkml_fail(err, status, "%s", why.message);
    if (*out == VK_NULL_HANDLE) {
        VKML_LOGD("fused group '%s': generated shader failed (%s); interpreted",
                  fp->summary ? fp->summary : "?", compiled ? why.message : "before");
        atomic_fetch_add(&n_interpreted, 1);
        return VKML_OK;
    }
    atomic_fetch_add(compiled ? &n_compiled : &n_cached, 1);
    return VKML_OK;
#else
    (void)vd, (void)fp, (void)err;
    atomic_fetch_add(&n_interpreted, 1);
    return VKML_OK;
#endif
}
