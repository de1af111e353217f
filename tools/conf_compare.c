/* Output comparison. The default is ONNX's backend-test rule: floating types within
 * |got - want| <= atol + rtol * |want| (NaN equals NaN), integers, bools and strings
 * exactly, dtype and shape equal. The model rule (--tolerance model) bounds the largest error by
 * the output's scale instead and checks the argmax of each row. */
#include "conformance.h"

#include <math.h>
#include <string.h>

static bool is_floating(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_DOUBLE || t == VKML_DTYPE_FLOAT16 ||
           t == VKML_DTYPE_BFLOAT16;
}

/* float8, float4 and the packed integers: compared by value, exactly (NaN equals NaN, so
 * any of a format's NaN patterns matches another). */
static bool is_small(vkml_dtype t)
{
    return t >= VKML_DTYPE_FLOAT8E4M3FN && t <= VKML_DTYPE_INT2;
}

/* Bytes of n elements (packed types rounded up; strings: their pointers). */
static size_t data_bytes(vkml_dtype t, size_t n)
{
    if (t == VKML_DTYPE_STRING)
        return n * sizeof(const char *);
    return (n * vkml_dtype_bits(t) + 7) / 8;
}

static const char *string_at(const vkml_tensor *t, size_t i)
{
    const char *s = ((const char *const *)t->data)[i];
    return s ? s : "(null)";
}

static bool close_enough(double got, double want)
{
    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want);
    if (got == want) /* also equal infinities */
        return true;
    if (isinf(got) || isinf(want)) /* inf - x is inf, which the bound would let through */
        return false;
    return fabs(got - want) <= CONF_ATOL + CONF_RTOL * fabs(want);
}

static bool same_element(const vkml_tensor *got, const vkml_tensor *want, size_t i, size_t esize)
{
    double g, w;
    if (is_floating(want->dtype)) {
        cli_tensor_value(got, i, &g);
        cli_tensor_value(want, i, &w);
        return close_enough(g, w);
    }
    if (want->dtype == VKML_DTYPE_BOOL)
        return !((const uint8_t *)got->data)[i] == !((const uint8_t *)want->data)[i];
    if (want->dtype == VKML_DTYPE_STRING)
        return strcmp(string_at(got, i), string_at(want, i)) == 0;
    if (is_small(want->dtype)) {
        vkml_dtype_value(got->dtype, got->data, i, &g);
        vkml_dtype_value(want->dtype, want->data, i, &w);
        return g == w || (isnan(g) && isnan(w));
    }
    return memcmp((const char *)got->data + i * esize, (const char *)want->data + i * esize,
                  esize) == 0;
}

static void describe_mismatch(const char *name, const vkml_tensor *got, const vkml_tensor *want,
                              size_t i, char *why, size_t why_size)
{
    char g[64], w[64];
    if (want->dtype == VKML_DTYPE_STRING) {
        snprintf(g, sizeof(g), "\"%.40s\"", string_at(got, i));
        snprintf(w, sizeof(w), "\"%.40s\"", string_at(want, i));
    } else if (want->dtype == VKML_DTYPE_INT64 || want->dtype == VKML_DTYPE_UINT64) {
        snprintf(g, sizeof(g), "%lld", (long long)((const int64_t *)got->data)[i]);
        snprintf(w, sizeof(w), "%lld", (long long)((const int64_t *)want->data)[i]);
    } else {
        double gv = 0, wv = 0;
        cli_tensor_value(got, i, &gv);
        cli_tensor_value(want, i, &wv);
        snprintf(g, sizeof(g), "%.9g", gv);
        snprintf(w, sizeof(w), "%.9g", wv);
    }
    snprintf(why, why_size, "output '%s' [%zu]: got %s, expected %s", name, i, g, w);
}

static bool same_shape(const vkml_tensor *a, const vkml_tensor *b)
{
    if (a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++) {
        if (a->dims[d] != b->dims[d])
            return false;
    }
    return true;
}

/* Dtype, shape and data size: 0 when the elements can be compared. */
static int check_layout(const char *name, const vkml_tensor *got, const vkml_tensor *want,
                        char *why, size_t why_size)
{
    char gs[160], ws[160];
    if (got->dtype != want->dtype) {
        snprintf(why, why_size, "output '%s': dtype %s, expected %s", name,
                 vkml_dtype_name(got->dtype), vkml_dtype_name(want->dtype));
        return 1;
    }
    if (!same_shape(got, want)) {
        snprintf(why, why_size, "output '%s': shape %s, expected %s", name,
                 cli_format_dims(got->rank, got->dims, gs, sizeof(gs)),
                 cli_format_dims(want->rank, want->dims, ws, sizeof(ws)));
        return 1;
    }
    size_t n = vkml_tensor_element_count(want->rank, want->dims);
    size_t bytes = data_bytes(want->dtype, n);
    if (vkml_dtype_bits(want->dtype) == 0 && want->dtype != VKML_DTYPE_STRING) {
        snprintf(why, why_size, "output '%s': cannot compare %s tensors", name,
                 vkml_dtype_name(want->dtype));
        return -1;
    }
    if (got->size < bytes || want->size < bytes) {
        snprintf(why, why_size, "output '%s': %zu bytes of data, %zu expected", name,
                 got->size < want->size ? got->size : want->size, bytes);
        return -1;
    }
    return 0;
}

/* Element by element with same_element: the first difference is the reason. */
static int compare_elements(const char *name, const vkml_tensor *got, const vkml_tensor *want,
                            char *why, size_t why_size)
{
    size_t esize = vkml_dtype_size(want->dtype);
    size_t n = vkml_tensor_element_count(want->rank, want->dims);
    for (size_t i = 0; i < n; i++) {
        if (!same_element(got, want, i, esize)) {
            describe_mismatch(name, got, want, i, why, why_size);
            return 1;
        }
    }
    why[0] = '\0';
    return 0;
}

int conf_compare(const char *name, const vkml_tensor *got, const vkml_tensor *want, char *why,
                 size_t why_size)
{
    int r = check_layout(name, got, want, why, why_size);
    return r ? r : compare_elements(name, got, want, why, why_size);
}

/* ---- The model rule ---- */

static double value_at(const vkml_tensor *t, size_t i)
{
    double v = 0;
    cli_tensor_value(t, i, &v);
    return v;
}

/* What the model rule measured on one floating output. */
typedef struct model_check {
    size_t n;
    double scale;   /* max |want| over the finite expected values */
    double allowed; /* largest |got - want| allowed */
    double max_err; /* largest |got - want| seen (inf where NaN or inf differ) */
    size_t worst;   /* the index of max_err */
} model_check;

/* |got - want| of one element; inf where a NaN or an infinity is not matched. */
static double element_error(double g, double w)
{
    if (isnan(w) || isnan(g))
        return isnan(w) && isnan(g) ? 0.0 : INFINITY;
    if (isinf(w) || isinf(g))
        return g == w ? 0.0 : INFINITY;
    return fabs(g - w);
}

static void measure(const vkml_tensor *got, const vkml_tensor *want, double factor, model_check *m)
{
    *m = (model_check){.n = vkml_tensor_element_count(want->rank, want->dims)};
    for (size_t i = 0; i < m->n; i++) {
        double w = value_at(want, i);
        if (isfinite(w) && fabs(w) > m->scale)
            m->scale = fabs(w);
        double e = element_error(value_at(got, i), w);
        if (e > m->max_err) {
            m->max_err = e;
            m->worst = i;
        }
    }
    m->allowed = fmax(factor * m->scale, CONF_ATOL);
}

/* Index of the largest value of row r (the first of equal ones; NaN never wins; 0 when
 * nothing beats -inf). */
static size_t row_argmax(const vkml_tensor *t, size_t r, size_t len)
{
    size_t best = 0;
    double bv = -INFINITY;
    for (size_t j = 0; j < len; j++) {
        double v = value_at(t, r * len + j);
        if (v > bv) {
            bv = v;
            best = j;
        }
    }
    return best;
}

/* The argmax of each row over the last axis. 1 with the reason at the first row whose
 * argmax differs by more than a tie; otherwise 0 with the ties counted in *ties. */
static int compare_argmax(const char *name, const vkml_tensor *got, const vkml_tensor *want,
                          const model_check *m, size_t *ties, char *why, size_t why_size)
{
    size_t len = (size_t)want->dims[want->rank - 1], rows = m->n / len;
    *ties = 0;
    for (size_t r = 0; r < rows; r++) {
        size_t ag = row_argmax(got, r, len), aw = row_argmax(want, r, len);
        if (ag == aw)
            continue;
        double top = value_at(want, r * len + aw), picked = value_at(want, r * len + ag);
        if (top - picked <= m->allowed) { /* also false for NaN */
            (*ties)++;
            continue;
        }
        snprintf(why, why_size,
                 "output '%s' row %zu of %zu: argmax %zu, expected %zu (expected values %.9g "
                 "and %.9g differ by more than the allowed %.3g); max abs error %.3g, scale "
                 "%.6g",
                 name, r, rows, ag, aw, top, picked, m->allowed, m->max_err, m->scale);
        return 1;
    }
    return 0;
}

static double default_factor(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT16 || t == VKML_DTYPE_BFLOAT16 ? CONF_MODEL_FACTOR_HALF
                                                               : CONF_MODEL_FACTOR;
}

int conf_compare_model(const char *name, const vkml_tensor *got, const vkml_tensor *want,
                       double factor, char *why, size_t why_size)
{
    int r = check_layout(name, got, want, why, why_size);
    if (r || !is_floating(want->dtype))
        return r ? r : compare_elements(name, got, want, why, why_size);
    if (factor <= 0)
        factor = default_factor(want->dtype);
    model_check m;
    measure(got, want, factor, &m);
    if (!(m.max_err <= m.allowed)) {
        snprintf(why, why_size,
                 "output '%s': max abs error %.3g at [%zu] (got %.9g, expected %.9g), scale "
                 "(max |expected|) %.6g, allowed %.3g (%g x scale)",
                 name, m.max_err, m.worst, value_at(got, m.worst), value_at(want, m.worst), m.scale,
                 m.allowed, factor);
        return 1;
    }
    why[0] = '\0';
    size_t ties = 0;
    if (want->rank >= 2 && want->dims[want->rank - 1] > 1 && m.n > 0) {
        if (compare_argmax(name, got, want, &m, &ties, why, why_size))
            return 1;
    }
    if (ties)
        snprintf(why, why_size,
                 "output '%s': argmax differs in %zu row(s) where the expected "
                 "top values are within the allowed %.3g (ties)",
                 name, ties, m.allowed);
    return 0;
}

int conf_compare_with(const conf_tolerance *tol, const char *name, const vkml_tensor *got,
                      const vkml_tensor *want, char *why, size_t why_size)
{
    if (tol && tol->rule == CONF_RULE_MODEL) {
        double factor = tol->factor <= 0 && tol->half_math ? CONF_MODEL_FACTOR_HALF : tol->factor;
        return conf_compare_model(name, got, want, factor, why, why_size);
    }
    return conf_compare(name, got, want, why, why_size);
}
