/* The conformance comparison rules (tools/conf_compare.c): ONNX's rtol 1e-3 / atol 1e-7
 * for floating types at the boundary, NaN equals NaN, infinities, integers and bools
 * exact, float16/bfloat16 decoded, dtype and shape mismatches, and the FAIL reason. */
#include "conformance.h"
#include "testutil.h"

static vkml_tensor make(vkml_dtype dtype, int n, void *data)
{
    vkml_tensor t = {.dtype = dtype, .rank = 1, .dims = {n}, .data = data};
    t.size = (size_t)n * vkml_dtype_size(dtype);
    return t;
}

static int compare_floats(float got, float want, char *why, size_t size)
{
    vkml_tensor g = make(VKML_DTYPE_FLOAT, 1, &got), w = make(VKML_DTYPE_FLOAT, 1, &want);
    return conf_compare("y", &g, &w, why, size);
}

static void test_float_tolerance(void)
{
    char why[256];
    /* 100 +- (1e-7 + 0.1) is inside; 0.1002 outside. */
    CHECK(compare_floats(100.1f, 100.0f, why, sizeof(why)) == 0, "100.1 vs 100: %s", why);
    CHECK(compare_floats(100.1002f, 100.0f, why, sizeof(why)) == 1, "100.1002 vs 100 passed");
    /* Near zero only atol counts: 5e-8 is inside, 2e-7 is not. */
    CHECK(compare_floats(5e-8f, 0.0f, why, sizeof(why)) == 0, "5e-8 vs 0: %s", why);
    CHECK(compare_floats(2e-7f, 0.0f, why, sizeof(why)) == 1, "2e-7 vs 0 passed");
    /* Relative to the expected value, not the result. */
    CHECK(compare_floats(1000.0f, 1001.0005f, why, sizeof(why)) == 0, "1000 vs 1001.0005: %s", why);
    CHECK(compare_floats(1001.0005f, 1000.0f, why, sizeof(why)) == 1, "1001.0005 vs 1000 passed");
    CHECK(compare_floats(NAN, NAN, why, sizeof(why)) == 0, "NaN vs NaN: %s", why);
    CHECK(compare_floats(NAN, 1.0f, why, sizeof(why)) == 1, "NaN vs 1 passed");
    CHECK(compare_floats(1.0f, NAN, why, sizeof(why)) == 1, "1 vs NaN passed");
    CHECK(compare_floats(INFINITY, INFINITY, why, sizeof(why)) == 0, "inf vs inf: %s", why);
    CHECK(compare_floats(-INFINITY, INFINITY, why, sizeof(why)) == 1, "-inf vs inf passed");
    CHECK(compare_floats(1e30f, INFINITY, why, sizeof(why)) == 1, "1e30 vs inf passed");
}

static void test_first_mismatch_reason(void)
{
    float got[4] = {1, 2, 3, 5}, want[4] = {1, 2, 3.5f, 4};
    vkml_tensor g = make(VKML_DTYPE_FLOAT, 4, got), w = make(VKML_DTYPE_FLOAT, 4, want);
    char why[256];
    CHECK(conf_compare("out", &g, &w, why, sizeof(why)) == 1, "mismatch passed");
    CHECK(strcmp(why, "output 'out' [2]: got 3, expected 3.5") == 0, "reason: %s", why);
}

static void test_integers_and_bools(void)
{
    char why[256];
    int64_t a[2] = {INT64_C(9007199254740993), 7}, b[2] = {INT64_C(9007199254740992), 7};
    vkml_tensor g = make(VKML_DTYPE_INT64, 2, a), w = make(VKML_DTYPE_INT64, 2, b);
    /* Equal as doubles, different as integers. */
    CHECK(conf_compare("i", &g, &w, why, sizeof(why)) == 1, "int64 off by one passed");
    CHECK(strstr(why, "got 9007199254740993, expected 9007199254740992"), "reason: %s", why);
    int32_t c[2] = {1, 1000}, d[2] = {1, 1001};
    g = make(VKML_DTYPE_INT32, 2, c);
    w = make(VKML_DTYPE_INT32, 2, d);
    CHECK(conf_compare("i", &g, &w, why, sizeof(why)) == 1, "int32 1000 vs 1001 passed");
    uint8_t t[3] = {1, 0, 2}, u[3] = {1, 0, 1};
    g = make(VKML_DTYPE_BOOL, 3, t);
    w = make(VKML_DTYPE_BOOL, 3, u);
    CHECK(conf_compare("b", &g, &w, why, sizeof(why)) == 0, "bools by truth: %s", why);
    u[1] = 1;
    CHECK(conf_compare("b", &g, &w, why, sizeof(why)) == 1, "false vs true passed");
}

static void test_half_types(void)
{
    char why[256];
    /* float16 0x3c00 = 1.0, 0x3c01 = 1.000977 (within 1e-3 relative), 0x3c02 not. */
    uint16_t one = 0x3c00, next = 0x3c01, next2 = 0x3c02;
    vkml_tensor g = make(VKML_DTYPE_FLOAT16, 1, &next), w = make(VKML_DTYPE_FLOAT16, 1, &one);
    CHECK(conf_compare("h", &g, &w, why, sizeof(why)) == 0, "fp16 1 ulp: %s", why);
    g.data = &next2;
    CHECK(conf_compare("h", &g, &w, why, sizeof(why)) == 1, "fp16 2 ulp passed");
    CHECK(strstr(why, "expected 1"), "reason: %s", why);
    /* bfloat16 0x3f80 = 1.0, 0x3f81 = 1.0078: a FAIL. */
    uint16_t b1 = 0x3f80, b2 = 0x3f81;
    g = make(VKML_DTYPE_BFLOAT16, 1, &b2);
    w = make(VKML_DTYPE_BFLOAT16, 1, &b1);
    CHECK(conf_compare("b", &g, &w, why, sizeof(why)) == 1, "bf16 1.0078 vs 1 passed");
}

static void test_type_and_shape(void)
{
    char why[256];
    float f[6] = {0};
    int32_t i[6] = {0};
    vkml_tensor g = make(VKML_DTYPE_FLOAT, 6, f), w = make(VKML_DTYPE_INT32, 6, i);
    CHECK(conf_compare("y", &g, &w, why, sizeof(why)) == 1, "float vs int32 passed");
    CHECK(strcmp(why, "output 'y': dtype float, expected int32") == 0, "reason: %s", why);
    w = make(VKML_DTYPE_FLOAT, 6, f);
    g.rank = 2;
    g.dims[0] = 2;
    g.dims[1] = 3;
    CHECK(conf_compare("y", &g, &w, why, sizeof(why)) == 1, "[2,3] vs [6] passed");
    CHECK(strcmp(why, "output 'y': shape [2,3], expected [6]") == 0, "reason: %s", why);
    g = make(VKML_DTYPE_FLOAT, 6, f);
    g.size = 8; /* fewer bytes than the shape needs */
    CHECK(conf_compare("y", &g, &w, why, sizeof(why)) == -1, "short data not an error");
}

int main(void)
{
    test_float_tolerance();
    test_first_mismatch_reason();
    test_integers_and_bools();
    test_half_types();
    test_type_and_shape();
    return test_finish("test_compare");
}
