/* Shapes and values of tensors as the commands print them; symbolic dimensions. */
#include "cli_util.h"
#include <stdlib.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Appends to buf at *pos, never past size (the text is cut, still terminated). */
static void append(char *buf, size_t size, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *pos, const char *fmt, ...)
{
    if (*pos >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos += (size_t)n < size - *pos ? (size_t)n : size - *pos - 1;
}

const char *cli_format_info_shape(const vkml_tensor_info *info, char *buf, size_t size)
{
    size_t pos = 0;
    buf[0] = '\0';
    if (info->rank < 0) {
        append(buf, size, &pos, "[?]");
        return buf;
    }
    append(buf, size, &pos, "[");
    for (int d = 0; d < info->rank; d++) {
        const char *sep = d ? "," : "";
        if (info->dims[d] >= 0)
            append(buf, size, &pos, "%s%lld", sep, (long long)info->dims[d]);
        else if (info->dim_names[d] && info->dim_names[d][0])
            append(buf, size, &pos, "%s%s", sep, info->dim_names[d]);
        else
            append(buf, size, &pos, "%s?", sep);
    }
    append(buf, size, &pos, "]");
    return buf;
}

const char *cli_format_dims(int rank, const int64_t *dims, char *buf, size_t size)
{
    size_t pos = 0;
    buf[0] = '\0';
    append(buf, size, &pos, "[");
    for (int d = 0; d < rank; d++)
        append(buf, size, &pos, "%s%lld", d ? "," : "", (long long)dims[d]);
    append(buf, size, &pos, "]");
    return buf;
}

static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp(mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp(mant | 0x400, exp - 25);
    return sign ? -v : v;
}

static double bfloat16_to_double(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

bool cli_tensor_value(const vkml_tensor *t, size_t i, double *out)
{
    const void *p = (const char *)t->data + i * vkml_dtype_size(t->dtype); /* 0: packed */
    switch (t->dtype) {
    case VKML_DTYPE_FLOAT: *out = *(const float *)p; return true;
    case VKML_DTYPE_DOUBLE: *out = *(const double *)p; return true;
    case VKML_DTYPE_FLOAT16: *out = half_to_double(*(const uint16_t *)p); return true;
    case VKML_DTYPE_BFLOAT16: *out = bfloat16_to_double(*(const uint16_t *)p); return true;
    case VKML_DTYPE_UINT8: *out = *(const uint8_t *)p; return true;
    case VKML_DTYPE_INT8: *out = *(const int8_t *)p; return true;
    case VKML_DTYPE_UINT16: *out = *(const uint16_t *)p; return true;
    case VKML_DTYPE_INT16: *out = *(const int16_t *)p; return true;
    case VKML_DTYPE_INT32: *out = *(const int32_t *)p; return true;
    case VKML_DTYPE_INT64: *out = (double)*(const int64_t *)p; return true;
    case VKML_DTYPE_UINT32: *out = *(const uint32_t *)p; return true;
    case VKML_DTYPE_UINT64: *out = (double)*(const uint64_t *)p; return true;
    case VKML_DTYPE_BOOL: *out = *(const uint8_t *)p ? 1.0 : 0.0; return true;
    default: return vkml_dtype_value(t->dtype, t->data, i, out); /* the small types */
    }
}

void cli_print_values(FILE *f, const vkml_tensor *t, size_t max_values)
{
    size_t n = vkml_tensor_element_count(t->rank, t->dims);
    if (n > max_values)
        n = max_values;
    for (size_t i = 0; t->dtype == VKML_DTYPE_STRING && i < n; i++) {
        const char *str = ((const char *const *)t->data)[i];
        fprintf(f, "%s\"%s\"", i ? " " : "", str ? str : "(null)");
    }
    for (size_t i = 0; t->dtype != VKML_DTYPE_STRING && i < n; i++) {
        double v;
        if (!cli_tensor_value(t, i, &v)) {
            fprintf(f, "(%s values not printable)", vkml_dtype_name(t->dtype));
            return;
        }
        /* 64-bit integers print exactly, not through a double. */
        if (t->dtype == VKML_DTYPE_INT64)
            fprintf(f, "%s%lld", i ? " " : "", (long long)((const int64_t *)t->data)[i]);
        else if (t->dtype == VKML_DTYPE_UINT64)
            fprintf(f, "%s%llu", i ? " " : "", (unsigned long long)((const uint64_t *)t->data)[i]);
        else
            fprintf(f, "%s%.7g", i ? " " : "", v);
    }
}

/* Records the value of each symbolic dim; false when two uses disagree. */
static bool note_symbolic(const vkml_tensor_info *info, const vkml_tensor *t, int64_t *value)
{
    if (!t->data || info->rank != t->rank)
        return true;
    for (int d = 0; d < info->rank; d++) {
        if (info->dims[d] >= 0)
            continue;
        if (*value && *value != t->dims[d])
            return false;
        *value = t->dims[d];
    }
    return true;
}

int64_t cli_symbolic_value(const vkml_model *model, const vkml_tensor *inputs, size_t count)
{
    int64_t value = 0;
    size_t n = vkml_model_input_count(model);
    for (size_t i = 0; i < n && i < count; i++) {
        if (!note_symbolic(vkml_model_input(model, i), &inputs[i], &value))
            return 0;
    }
    return value > 0 ? value : 0;
}

vkml_tensor_info *cli_input_shapes(const vkml_model *model, const vkml_tensor *inputs, size_t count)
{
    size_t n = vkml_model_input_count(model);
    vkml_tensor_info *shapes = calloc(n + 1, sizeof(*shapes));
    for (size_t i = 0; shapes && i < n; i++) {
        shapes[i] = *vkml_model_input(model, i);
        if (i < count && inputs[i].rank == shapes[i].rank && inputs[i].data)
            memcpy(shapes[i].dims, inputs[i].dims, sizeof(shapes[i].dims));
    }
    return shapes;
}

bool cli_tensor_matches_info(const vkml_tensor *t, const vkml_tensor_info *info, char *msg,
                             size_t msg_size)
{
    char got[160], want[160];
    if (t->dtype != info->dtype) {
        snprintf(msg, msg_size, "input '%s': dtype %s, the session expects %s", info->name,
                 vkml_dtype_name(t->dtype), vkml_dtype_name(info->dtype));
        return false;
    }
    bool same = t->rank == info->rank;
    for (int d = 0; same && d < t->rank; d++)
        same = t->dims[d] == info->dims[d];
    if (!same) {
        snprintf(msg, msg_size, "input '%s': shape %s, the session expects %s", info->name,
                 cli_format_dims(t->rank, t->dims, got, sizeof(got)),
                 cli_format_info_shape(info, want, sizeof(want)));
        return false;
    }
    return true;
}

static void print_argmax(FILE *f, const vkml_tensor *t, size_t n)
{
    double best = 0, v;
    size_t arg = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cli_tensor_value(t, i, &v))
            return;
        if (i == 0 || v > best) {
            best = v;
            arg = i;
        }
    }
    fprintf(f, "  argmax: %zu (%.7g)\n", arg, best);
}

void cli_print_tensor(const char *name, const vkml_tensor *t, size_t max_values)
{
    char shape[160];
    size_t n = vkml_tensor_element_count(t->rank, t->dims);
    printf("%s: %s %s\n  values:", name, vkml_dtype_name(t->dtype),
           cli_format_dims(t->rank, t->dims, shape, sizeof(shape)));
    if (n) {
        putchar(' ');
        cli_print_values(stdout, t, max_values);
    }
    printf(" (%zu of %zu)\n", n < max_values ? n : max_values, n);
    if (n > 1 && t->dtype != VKML_DTYPE_STRING)
        print_argmax(stdout, t, n);
}
