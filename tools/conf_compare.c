/* Output comparison with ONNX's backend-test rules: floating types within
 * |got - want| <= atol + rtol * |want| (NaN equals NaN), integers and bools exactly,
 * dtype and shape equal. */
#include "conformance.h"

#include <math.h>
#include <string.h>

static bool is_floating(vkml_dtype t)
{
    return t == VKML_DTYPE_FLOAT || t == VKML_DTYPE_DOUBLE || t == VKML_DTYPE_FLOAT16 ||
           t == VKML_DTYPE_BFLOAT16;
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
    return memcmp((const char *)got->data + i * esize, (const char *)want->data + i * esize,
                  esize) == 0;
}

static void describe_mismatch(const char *name, const vkml_tensor *got, const vkml_tensor *want,
                              size_t i, char *why, size_t why_size)
{
    char g[64], w[64];
    if (want->dtype == VKML_DTYPE_INT64 || want->dtype == VKML_DTYPE_UINT64) {
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

int conf_compare(const char *name, const vkml_tensor *got, const vkml_tensor *want, char *why,
                 size_t why_size)
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
    size_t esize = vkml_dtype_size(want->dtype);
    size_t n = vkml_tensor_element_count(want->rank, want->dims);
    if (esize == 0) {
        snprintf(why, why_size, "output '%s': cannot compare %s tensors", name,
                 vkml_dtype_name(want->dtype));
        return -1;
    }
    if (got->size < n * esize || want->size < n * esize) {
        snprintf(why, why_size, "output '%s': %zu bytes of data, %zu expected", name,
                 got->size < want->size ? got->size : want->size, n * esize);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!same_element(got, want, i, esize)) {
            describe_mismatch(name, got, want, i, why, why_size);
            return 1;
        }
    }
    return 0;
}
