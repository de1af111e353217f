/* CPU kernels of the string ops (ops/text.h): StringNormalizer, StringConcat. Strings are
 * UTF-8; case mapping decodes them and maps each code point with the C library's
 * towlower/towupper in the C.UTF-8 locale (Unicode's simple, one-to-one mappings; ASCII
 * only where the C library lacks that locale). */
#include "ops/text.h"
#include "cpu/cpu_kernels.h"

#include <locale.h>
#include <pthread.h>
#include <string.h>
#include <wctype.h>

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

/* Made once and kept for the process (a locale_t is read-only, shared by every thread). */
static void open_utf8_locale(void)
{
    utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static uint32_t map_code_point(uint32_t c, strnorm_case mode)
{
    if (c < 0x80) {
        if (mode == STRNORM_CASE_LOWER && c >= 'A' && c <= 'Z')
            return c + ('a' - 'A');
        if (mode == STRNORM_CASE_UPPER && c >= 'a' && c <= 'z')
            return c - ('a' - 'A');
        return c;
    }
    pthread_once(&utf8_once, open_utf8_locale);
    if (!utf8_locale)
        return c;
    wint_t m = mode == STRNORM_CASE_LOWER ? towlower_l((wint_t)c, utf8_locale)
                                          : towupper_l((wint_t)c, utf8_locale);
    return m <= 0x10FFFF && !(m >= 0xD800 && m <= 0xDFFF) ? (uint32_t)m : c;
}

/* Decodes one code point at s (a valid UTF-8 sequence: no overlong form, surrogate or
 * value past U+10FFFF); returns its length, 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *out)
{
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = s[0] < 0x80                    ? 1
                 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2
                 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
                 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                                : 0;
    if (!len)
        return 0;
    uint32_t c = len == 1 ? s[0] : s[0] & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[k] & 0x3F);
    }
    if (c < min[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *out = c;
    return len;
}

static size_t utf8_encode(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    size_t len = c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    for (size_t k = len - 1; k > 0; k--, c >>= 6)
        out[k] = (char)(0x80 | (c & 0x3F));
    out[0] = (char)((len == 2 ? 0xC0 : len == 3 ? 0xE0 : 0xF0) | c);
    return len;
}

/* s with its case changed, in the arena; *out NULL on out of memory. Fails naming the
 * element when s is not UTF-8. A code point's mapping is at most 4 bytes, and at most
 * one byte longer than it (an ASCII letter maps to one): 2 bytes per byte suffice. */
static vkml_status map_case(vkml_arena *arena, const char *s, strnorm_case mode, size_t index,
                            const char **out, vkml_error *err)
{
    size_t len = strlen(s);
    *out = NULL;
    if (len > (SIZE_MAX - 1) / 2)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "string %zu is too long", index);
    char *dst = vkml_arena_alloc(arena, 2 * len + 1), *p = dst;
    if (!dst)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for strings");
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = utf8_decode((const unsigned char *)s + i, &c);
        if (!n)
            return vkml_fail(err, VKML_ERROR_INVALID_ARGUMENT,
                             "string %zu is not valid UTF-8 (byte %zu)", index, i);
        p += utf8_encode(map_code_point(c, mode), p);
        i += n;
    }
    *p = '\0';
    *out = dst;
    return VKML_OK;
}

/* Whether a and b are equal once both are lower case; invalid UTF-8 compares bytes. */
static bool equal_ignoring_case(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    while (*x && *y) {
        uint32_t cx, cy;
        size_t nx = utf8_decode(x, &cx), ny = utf8_decode(y, &cy);
        if (!nx || !ny)
            return strcmp((const char *)x, (const char *)y) == 0;
        if (map_code_point(cx, STRNORM_CASE_LOWER) != map_code_point(cy, STRNORM_CASE_LOWER))
            return false;
        x += nx;
        y += ny;
    }
    return !*x && !*y;
}

static bool is_stopword(const strnorm_params *p, const char *word)
{
    for (size_t k = 0; k < p->n_stopwords; k++) {
        if (p->case_sensitive ? strcmp(word, p->stopwords[k]) == 0
                              : equal_ignoring_case(word, p->stopwords[k]))
            return true;
    }
    return false;
}

vkml_status cpu_string_normalizer(const op_cpu_args *args, vkml_error *err)
{
    const strnorm_params *p = args->node->params;
    const graph_value *x = &args->values[args->node->inputs[0]];
    const char *const *in = args->in[0];
    const char **out = args->out[0];
    int64_t words = x->dims[x->rank - 1], kept = 0;
    for (int64_t i = 0; i < words; i++) {
        if (is_stopword(p, in[i]))
            continue;
        if (p->case_change == STRNORM_CASE_NONE) {
            out[kept++] = in[i]; /* the input's strings outlive this run's reads */
            continue;
        }
        vkml_status st = map_case(args->strings, in[i], p->case_change, (size_t)i, &out[kept], err);
        if (st)
            return st;
        kept++;
    }
    if (kept == 0) /* ONNX: every word a stop word gives one empty string */
        out[kept++] = "";
    if (args->out_dims) {
        args->out_dims[0][0] = 1;
        args->out_dims[0][x->rank - 1] = kept;
    }
    return VKML_OK;
}

vkml_status cpu_string_concat(const op_cpu_args *args, vkml_error *err)
{
    const graph_value *a = &args->values[args->node->inputs[0]];
    const graph_value *b = &args->values[args->node->inputs[1]];
    const graph_value *y = &args->values[args->node->outputs[0]];
    const char *const *xa = args->in[0], *const *xb = args->in[1];
    const char **out = args->out[0];
    int64_t sa[VKML_MAX_RANK], sb[VKML_MAX_RANK], idx[VKML_MAX_RANK];
    op_broadcast_strides(a->rank, a->dims, y->rank, y->dims, sa);
    op_broadcast_strides(b->rank, b->dims, y->rank, y->dims, sb);
    int64_t n = (int64_t)vkml_tensor_element_count(y->rank, y->dims);
    for (int64_t i = 0; i < n; i++) {
        cpu_index_from_linear(i, y->dims, y->rank, idx);
        int64_t ia = 0, ib = 0;
        for (int d = 0; d < y->rank; d++) {
            ia += idx[d] * sa[d];
            ib += idx[d] * sb[d];
        }
        size_t la = strlen(xa[ia]), lb = strlen(xb[ib]);
        char *s = vkml_arena_alloc(args->strings, la + lb + 1);
        if (!s)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "out of memory for strings");
        memcpy(s, xa[ia], la);
        memcpy(s + la, xb[ib], lb + 1);
        out[i] = s;
    }
    return VKML_OK;
}
