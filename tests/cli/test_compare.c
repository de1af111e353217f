/* The conformance comparison rules (tools/conf_compare.c): ONNX's rtol 1e-3 / atol 1e-7
 * for floating types at the boundary, NaN equals NaN, infinities, integers and bools
 * exact, float16/bfloat16 decoded, dtype and shape mismatches, and the FAIL reason; then
 * the model rule (--tolerance model): max error against 1e-4 (float16: 1e-2) x the
 * largest expected magnitude (also 1e-2 for float32 outputs of a session computing in
 * float16), argmax per row with ties noted, and its FAIL reasons. */
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

/* ---- The model rule ---- */

static int compare_model(vkml_dtype dtype, int rank, const int64_t *dims, void *got, void *want,
                         double factor, char *why, size_t size)
{
    vkml_tensor g = {.dtype = dtype, .rank = rank, .data = got};
    memcpy(g.dims, dims, (size_t)rank * sizeof(dims[0]));
    g.size = vkml_tensor_element_count(rank, dims) * vkml_dtype_size(dtype);
    vkml_tensor w = g;
    w.data = want;
    return conf_compare_model("y", &g, &w, factor, why, size);
}

static void test_model_scale(void)
{
    char why[512];
    const int64_t dims[1] = {3};
    /* Scale 20 (the largest |expected|), so 1e-4 allows 0.002 on every element. */
    float want[3] = {10, -20, 5}, ok[3] = {10, -20.0019f, 5.0019f}, bad[3] = {10, -19.9979f, 5};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, ok, want, 0, why, sizeof(why)) == 0,
          "errors of 0.0019 against scale 20: %s", why);
    CHECK(why[0] == '\0', "a PASS without ties has no note: %s", why);
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, bad, want, 0, why, sizeof(why)) == 1,
          "an error of 0.0021 against scale 20 passed");
    CHECK(strcmp(why, "output 'y': max abs error 0.0021 at [1] (got -19.9979, expected -20), "
                      "scale (max |expected|) 20, allowed 0.002 (0.0001 x scale)") == 0,
          "reason: %s", why);
    /* A number in place of 1e-4: 0.0021 is inside 2e-4 x 20. */
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, bad, want, 2e-4, why, sizeof(why)) == 0,
          "factor 2e-4: %s", why);
}

static void test_model_small_values(void)
{
    char why[512];
    const int64_t dims[1] = {2};
    /* A small logit next to a large one: 50% off element-wise, but 0.0005 is inside
     * 1e-4 x 100 = 0.01. The element rule fails it, the model rule does not. */
    float want[2] = {100, 0.001f}, got[2] = {100, 0.0015f};
    vkml_tensor g = make(VKML_DTYPE_FLOAT, 2, got), w = make(VKML_DTYPE_FLOAT, 2, want);
    CHECK(conf_compare("y", &g, &w, why, sizeof(why)) == 1, "element rule passed 0.0015 vs 0.001");
    conf_tolerance model = {.rule = CONF_RULE_MODEL}, element = {0};
    CHECK(conf_compare_with(&model, "y", &g, &w, why, sizeof(why)) == 0, "model rule: %s", why);
    CHECK(conf_compare_with(&element, "y", &g, &w, why, sizeof(why)) == 1, "default rule passed");
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, got, want, 0, why, sizeof(why)) == 0,
          "model rule: %s", why);
    /* An all-zero expected output still allows ONNX's atol, 1e-7. */
    float zeros[2] = {0, 0}, tiny[2] = {5e-8f, 0}, small[2] = {2e-7f, 0};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, tiny, zeros, 0, why, sizeof(why)) == 0,
          "5e-8 vs zeros: %s", why);
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, small, zeros, 0, why, sizeof(why)) == 1,
          "2e-7 vs zeros passed");
    CHECK(strstr(why, "scale (max |expected|) 0, allowed 1e-07"), "reason: %s", why);
}

static void test_model_half(void)
{
    char why[512];
    const int64_t dims[1] = {2};
    /* float16 1.0, 2.0: scale 2, 1e-2 allows 0.02. 0x4008 = 2.015625 (inside),
     * 0x400b = 2.021484 (outside). */
    uint16_t want[2] = {0x3c00, 0x4000}, ok[2] = {0x3c00, 0x4008}, bad[2] = {0x3c00, 0x400b};
    CHECK(compare_model(VKML_DTYPE_FLOAT16, 1, dims, ok, want, 0, why, sizeof(why)) == 0,
          "fp16 2.015625 vs 2: %s", why);
    CHECK(compare_model(VKML_DTYPE_FLOAT16, 1, dims, bad, want, 0, why, sizeof(why)) == 1,
          "fp16 2.021484 vs 2 passed");
    CHECK(strstr(why, "max abs error 0.0215 at [1] (got 2.02148438, expected 2), scale "
                      "(max |expected|) 2, allowed 0.02 (0.01 x scale)"),
          "reason: %s", why);
}

static void test_model_argmax(void)
{
    char why[512];
    const int64_t dims[2] = {2, 3};
    /* Scale 1, allowed 1e-4. Row 0: expected top values 1 and 0.99995 (a tie); the result
     * picks the second, every error is within 4e-5: a PASS with a note. */
    float want[6] = {1.0f, 0.99995f, 0.2f, 0.1f, 0.3f, 0.5f};
    float tie[6] = {0.99996f, 0.99999f, 0.2f, 0.1f, 0.3f, 0.5f};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 2, dims, tie, want, 0, why, sizeof(why)) == 0,
          "argmax tie: %s", why);
    CHECK(strcmp(why, "output 'y': argmax differs in 1 row(s) where the expected top values "
                      "are within the allowed 0.0001 (ties)") == 0,
          "note: %s", why);
    /* Expected 1 and 0.99985 (1.5e-4 apart): errors of 8e-5 each flip the argmax. Each
     * element is within the allowed error, the argmax is not. */
    float want2[6] = {1.0f, 0.99985f, 0.2f, 0.1f, 0.3f, 0.5f};
    float flip[6] = {0.99992f, 0.99993f, 0.2f, 0.1f, 0.3f, 0.5f};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 2, dims, flip, want2, 0, why, sizeof(why)) == 1,
          "argmax 1 for expected 0 passed");
    CHECK(strcmp(why, "output 'y' row 0 of 2: argmax 1, expected 0 (expected values 1 and "
                      "0.999849975 differ by more than the allowed 0.0001); max abs error "
                      "8e-05, scale 1") == 0,
          "reason: %s", why);
    /* The same values as one row of rank 1, or as a last dimension of 1: no argmax. */
    const int64_t flat[1] = {6}, column[2] = {6, 1};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, flat, flip, want2, 0, why, sizeof(why)) == 0,
          "rank 1 has no argmax check: %s", why);
    CHECK(compare_model(VKML_DTYPE_FLOAT, 2, column, flip, want2, 0, why, sizeof(why)) == 0,
          "[6,1] has no argmax check: %s", why);
    /* Row 1 wrong by far: the max error fails first. */
    float wrong[6] = {1.0f, 0.99985f, 0.2f, 0.1f, 0.6f, 0.5f};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 2, dims, wrong, want2, 0, why, sizeof(why)) == 1,
          "0.6 vs 0.3 passed");
    CHECK(strstr(why, "max abs error 0.3 at [4]"), "reason: %s", why);
}

static void test_model_special_values(void)
{
    char why[512];
    const int64_t dims[1] = {2};
    float want[2] = {NAN, 2}, same[2] = {NAN, 2}, lost[2] = {0, 2};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, same, want, 0, why, sizeof(why)) == 0,
          "NaN where NaN is expected: %s", why);
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, lost, want, 0, why, sizeof(why)) == 1,
          "0 where NaN is expected passed");
    CHECK(strstr(why, "max abs error inf at [0] (got 0, expected nan)"), "reason: %s", why);
    /* Infinities match only themselves and do not count in the scale (2: allowed 2e-4). */
    float inf_want[2] = {INFINITY, 2}, inf_ok[2] = {INFINITY, 2.00015f};
    float inf_bad[2] = {1e30f, 2};
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, inf_ok, inf_want, 0, why, sizeof(why)) == 0,
          "inf and 2.00015 vs inf and 2: %s", why);
    CHECK(compare_model(VKML_DTYPE_FLOAT, 1, dims, inf_bad, inf_want, 0, why, sizeof(why)) == 1,
          "1e30 vs inf passed");
    CHECK(strstr(why, "scale (max |expected|) 2,"), "reason: %s", why);
}

static void test_model_exact_types(void)
{
    char why[512];
    const int64_t dims[2] = {1, 2};
    /* int64 indices (NMS, ArgMax) and bools stay exact under the model rule. */
    int64_t want[2] = {3, 7}, got[2] = {3, 8};
    CHECK(compare_model(VKML_DTYPE_INT64, 2, dims, want, want, 0, why, sizeof(why)) == 0,
          "equal int64: %s", why);
    CHECK(compare_model(VKML_DTYPE_INT64, 2, dims, got, want, 0, why, sizeof(why)) == 1,
          "int64 8 vs 7 passed");
    CHECK(strcmp(why, "output 'y' [1]: got 8, expected 7") == 0, "reason: %s", why);
    uint8_t t[2] = {1, 0}, u[2] = {1, 1};
    CHECK(compare_model(VKML_DTYPE_BOOL, 2, dims, t, u, 0, why, sizeof(why)) == 1,
          "false vs true passed");
    /* Dtype and shape as in the default rule. */
    float f[2] = {0};
    vkml_tensor g = make(VKML_DTYPE_FLOAT, 2, f), w = make(VKML_DTYPE_FLOAT, 2, f);
    w.rank = 2;
    w.dims[0] = 1;
    w.dims[1] = 2;
    CHECK(conf_compare_model("y", &g, &w, 0, why, sizeof(why)) == 1, "[2] vs [1,2] passed");
    CHECK(strcmp(why, "output 'y': shape [2], expected [1,2]") == 0, "reason: %s", why);
}

/* A float32 output of a session computing in float16 (--precision fp16 or fp32-fast) gets
 * float16's bound; the same error fails float32's. */
static void test_model_half_math(void)
{
    float got[3] = {1.0f, 2.0f, 3.0015f}, want[3] = {1.0f, 2.0f, 3.0f};
    vkml_tensor g = make(VKML_DTYPE_FLOAT, 3, got), w = make(VKML_DTYPE_FLOAT, 3, want);
    char why[256];
    conf_tolerance fp32 = {.rule = CONF_RULE_MODEL},
                   fp16 = {.rule = CONF_RULE_MODEL, .half_math = true};
    CHECK(conf_compare_with(&fp32, "y", &g, &w, why, sizeof(why)) == 1,
          "5e-4 of scale passed float32's bound");
    CHECK(strstr(why, "(0.0001 x scale)"), "reason: %s", why);
    CHECK(conf_compare_with(&fp16, "y", &g, &w, why, sizeof(why)) == 0,
          "5e-4 of scale under half math: %s", why);
    got[2] = 3.04f; /* 1.3e-2 of scale: past float16's bound too */
    CHECK(conf_compare_with(&fp16, "y", &g, &w, why, sizeof(why)) == 1,
          "1.3e-2 of scale passed under half math");
    fp16.factor = 0.05;
    CHECK(conf_compare_with(&fp16, "y", &g, &w, why, sizeof(why)) == 0,
          "an explicit factor wins: %s", why);
}

int main(void)
{
    test_float_tolerance();
    test_first_mismatch_reason();
    test_integers_and_bools();
    test_half_types();
    test_type_and_shape();
    test_model_scale();
    test_model_small_values();
    test_model_half();
    test_model_half_math();
    test_model_argmax();
    test_model_special_values();
    test_model_exact_types();
    return test_finish("test_compare");
}
