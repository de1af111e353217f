/*
 * The small element types (suite 'ops'): float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0),
 * float4e2m1 and the packed int4/uint4/int2/uint2. Every bit pattern round trips through
 * the conversions (core/small_float.c), boundary values round and saturate as Cast
 * defines, packed sizes are whole bytes rounded up, and Cast, CastLike, QuantizeLinear and
 * DequantizeLinear give ONNX's values on the CPU (the Vulkan devices refuse these types).
 */
#include "op_harness.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const int64_t odd4[] = {5, 7, 11, 13};

static const vkml_dtype small_floats[] = {
    VKML_DTYPE_FLOAT8E4M3FN,   VKML_DTYPE_FLOAT8E4M3FNUZ, VKML_DTYPE_FLOAT8E5M2,
    VKML_DTYPE_FLOAT8E5M2FNUZ, VKML_DTYPE_FLOAT4E2M1,
};
static const vkml_dtype packed_ints[] = {VKML_DTYPE_INT4, VKML_DTYPE_UINT4, VKML_DTYPE_INT2,
                                         VKML_DTYPE_UINT2};

/* Every pattern decodes and encodes back to itself (NaN to a NaN), saturating or not. */
static void test_round_trips(void)
{
    for (size_t t = 0; t < VKML_ARRAY_SIZE(small_floats); t++) {
        vkml_dtype dt = small_floats[t];
        unsigned patterns = 1u << vkml_dtype_bits(dt);
        for (unsigned b = 0; b < patterns; b++) {
            double v = vkml_small_float_decode(dt, b);
            for (int sat = 0; sat < 2; sat++) {
                unsigned back = vkml_small_float_encode(dt, v, sat);
                bool ok = isnan(v)          ? isnan(vkml_small_float_decode(dt, back))
                          : isinf(v) && sat ? !isinf(vkml_small_float_decode(dt, back))
                                            : back == b;
                CHECK(ok, "%s: pattern 0x%02x (%g) came back as 0x%02x (saturate %d)",
                      vkml_dtype_name(dt), b, v, back, sat);
            }
        }
    }
    for (unsigned b = 0; b < 256; b++) { /* e8m0: 2^(b-127), 0xFF NaN */
        double v = vkml_small_float_decode(VKML_DTYPE_FLOAT8E8M0, b);
        CHECK(b == 0xFF ? isnan(v) : v == ldexp(1.0, (int)b - 127), "e8m0 0x%02x is %g", b, v);
        if (b < 0xFF && b > 0)
            CHECK(vkml_e8m0_encode((float)v, VKML_E8M0_UP, true) == b, "e8m0 0x%02x back", b);
    }
    for (size_t t = 0; t < VKML_ARRAY_SIZE(packed_ints); t++) {
        vkml_dtype dt = packed_ints[t];
        int64_t lo, hi;
        vkml_small_int_range(dt, &lo, &hi);
        for (int64_t v = lo; v <= hi; v++)
            CHECK(vkml_small_int_decode(dt, vkml_small_int_encode(dt, v)) == v, "%s %lld",
                  vkml_dtype_name(dt), (long long)v);
        /* Cast wraps: hi + 1 is lo. */
        CHECK(vkml_small_int_decode(dt, vkml_small_int_encode(dt, hi + 1)) == lo, "%s wrap",
              vkml_dtype_name(dt));
    }
}

typedef struct known {
    vkml_dtype dt;
    double x;
    unsigned sat, nosat; /* patterns with saturate=1 and saturate=0 */
} known;

/* Largest values, ties to even, overflow, infinities, NaN, signed zeros, subnormals. */
static void test_boundaries(void)
{
    static const known cases[] = {
        {VKML_DTYPE_FLOAT8E4M3FN, 448, 0x7E, 0x7E},
        {VKML_DTYPE_FLOAT8E4M3FN, 464, 0x7E, 0x7E}, /* tie: to even, the largest */
        {VKML_DTYPE_FLOAT8E4M3FN, 465, 0x7E, 0x7F},
        {VKML_DTYPE_FLOAT8E4M3FN, -INFINITY, 0xFE, 0xFF},
        {VKML_DTYPE_FLOAT8E4M3FN, -0.0, 0x80, 0x80},
        {VKML_DTYPE_FLOAT8E4M3FN, 0x1p-9, 0x01, 0x01},  /* smallest subnormal */
        {VKML_DTYPE_FLOAT8E4M3FN, 0x1p-10, 0x00, 0x00}, /* tie to even: zero */
        {VKML_DTYPE_FLOAT8E4M3FN, 0x3p-10, 0x02, 0x02}, /* tie to even: 2 * 2^-9 */
        {VKML_DTYPE_FLOAT8E4M3FN, 1.0625, 0x38, 0x38},  /* 1 + half ulp: to 1 */
        {VKML_DTYPE_FLOAT8E4M3FNUZ, 240, 0x7F, 0x7F},
        {VKML_DTYPE_FLOAT8E4M3FNUZ, 1e9, 0x7F, 0x80},
        {VKML_DTYPE_FLOAT8E4M3FNUZ, -0.0, 0x00, 0x00}, /* no negative zero */
        {VKML_DTYPE_FLOAT8E4M3FNUZ, NAN, 0x80, 0x80},
        {VKML_DTYPE_FLOAT8E5M2, 57344, 0x7B, 0x7B},
        {VKML_DTYPE_FLOAT8E5M2, 61440, 0x7B, 0x7C}, /* tie: up to infinity */
        {VKML_DTYPE_FLOAT8E5M2, INFINITY, 0x7B, 0x7C},
        {VKML_DTYPE_FLOAT8E5M2, -1e6, 0xFB, 0xFC},
        {VKML_DTYPE_FLOAT8E5M2, 0x1p-16, 0x01, 0x01},
        {VKML_DTYPE_FLOAT8E5M2FNUZ, 57344, 0x7F, 0x7F},
        {VKML_DTYPE_FLOAT8E5M2FNUZ, -1e6, 0xFF, 0x80},
        {VKML_DTYPE_FLOAT8E5M2FNUZ, 0x1p-17, 0x01, 0x01},
        {VKML_DTYPE_FLOAT4E2M1, 0.25, 0x0, 0x0}, /* tie to even */
        {VKML_DTYPE_FLOAT4E2M1, 0.75, 0x2, 0x2},
        {VKML_DTYPE_FLOAT4E2M1, 5, 0x6, 0x6},
        {VKML_DTYPE_FLOAT4E2M1, -7, 0xF, 0xF},  /* always saturates */
        {VKML_DTYPE_FLOAT4E2M1, NAN, 0x8, 0x8}, /* no NaN: -0, as ONNX */
    };
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++) {
        const known *k = &cases[i];
        unsigned s = vkml_small_float_encode(k->dt, k->x, true);
        unsigned n = vkml_small_float_encode(k->dt, k->x, false);
        CHECK(s == k->sat && n == k->nosat, "%s(%g): 0x%02x/0x%02x, expected 0x%02x/0x%02x",
              vkml_dtype_name(k->dt), k->x, s, n, k->sat, k->nosat);
    }
    CHECK(vkml_e8m0_encode(3.0f, VKML_E8M0_UP, true) == 128 + 1, "e8m0 up");
    CHECK(vkml_e8m0_encode(3.0f, VKML_E8M0_DOWN, true) == 128, "e8m0 down");
    CHECK(vkml_e8m0_encode(3.0f, VKML_E8M0_NEAREST, true) == 129, "e8m0 nearest (tie up)");
    CHECK(vkml_e8m0_encode(2.9f, VKML_E8M0_NEAREST, true) == 128, "e8m0 nearest");
    CHECK(vkml_e8m0_encode(INFINITY, VKML_E8M0_UP, true) == 0xFE, "e8m0 inf saturates");
    CHECK(vkml_e8m0_encode(INFINITY, VKML_E8M0_UP, false) == 0xFF, "e8m0 inf to NaN");
}

/* Sizes: bits per element, packed bytes rounded up, no whole-byte size for packed types. */
static void test_sizes(void)
{
    size_t b = 0;
    CHECK(vkml_dtype_bits(VKML_DTYPE_INT4) == 4 && vkml_dtype_size(VKML_DTYPE_INT4) == 0, "int4");
    CHECK(vkml_dtype_bits(VKML_DTYPE_UINT2) == 2, "uint2 bits");
    CHECK(vkml_dtype_size(VKML_DTYPE_FLOAT8E5M2) == 1, "float8 is one byte");
    CHECK(vkml_tensor_bytes(VKML_DTYPE_INT4, 2, (int64_t[]){3, 5}, &b) && b == 8, "15 int4: %zu",
          b);
    CHECK(vkml_tensor_bytes(VKML_DTYPE_INT2, 1, (int64_t[]){5}, &b) && b == 2, "5 int2: %zu", b);
    CHECK(vkml_tensor_bytes(VKML_DTYPE_FLOAT4E2M1, 0, NULL, &b) && b == 1, "scalar float4");
    CHECK(!vkml_tensor_bytes(VKML_DTYPE_INT4, 1, (int64_t[]){INT64_MAX}, &b), "overflow");
    CHECK(!strcmp(vkml_dtype_name(VKML_DTYPE_FLOAT8E4M3FNUZ), "float8e4m3fnuz"), "name");
    uint8_t packed[2] = {0};
    vkml_packed_set(packed, 1, 4, 0xA);
    vkml_packed_set(packed, 2, 4, 0x3);
    CHECK(packed[0] == 0xA0 && packed[1] == 0x03, "low nibble first: %02x %02x", packed[0],
          packed[1]);
}

/* Cast from float (odd shape, random, every small type) and back: on the CPU only. */
static void test_cast_random(void)
{
    static const vkml_dtype all[] = {
        VKML_DTYPE_FLOAT8E4M3FN,   VKML_DTYPE_FLOAT8E4M3FNUZ, VKML_DTYPE_FLOAT8E5M2,
        VKML_DTYPE_FLOAT8E5M2FNUZ, VKML_DTYPE_FLOAT8E8M0,     VKML_DTYPE_FLOAT4E2M1,
        VKML_DTYPE_INT4,           VKML_DTYPE_UINT4,          VKML_DTYPE_INT2,
        VKML_DTYPE_UINT2,
    };
    char label[96];
    for (size_t t = 0; t < VKML_ARRAY_SIZE(all); t++) {
        oh_case *c = oh_new("Cast", 25);
        oh_input(c, VKML_DTYPE_FLOAT, 4, odd4, -20, 20);
        oh_attr_int(c, "to", all[t]);
        oh_expect_gpu(c, false);
        snprintf(label, sizeof(label), "Cast float -> %s", vkml_dtype_name(all[t]));
        oh_run(c, label, OH_BOUND_EXACT);
        c = oh_new("Cast", 25);
        oh_input(c, all[t], 3, (int64_t[]){3, 5, 7}, -3, 3);
        oh_attr_int(c, "to", VKML_DTYPE_FLOAT16);
        oh_expect_gpu(c, false);
        snprintf(label, sizeof(label), "Cast %s -> float16", vkml_dtype_name(all[t]));
        oh_run(c, label, OH_BOUND_EXACT);
    }
}

/* Known values from the ONNX node tests. */
static void test_cast_known(void)
{
    /* float -> int4 wraps (test_cast_FLOAT_to_INT4); odd count: a half-used last byte. */
    oh_case *c = oh_new("Cast", 21);
    const float x[] = {-9, -8, 7, 8, 15, 2.5f, 3.5f};
    uint8_t want[4] = {0};
    const int64_t wv[] = {7, -8, 7, -8, -1, 2, 4};
    for (int i = 0; i < 7; i++)
        vkml_packed_set(want, (size_t)i, 4, vkml_small_int_encode(VKML_DTYPE_INT4, wv[i]));
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){7}, x);
    oh_attr_int(c, "to", VKML_DTYPE_INT4);
    oh_expect_gpu(c, false);
    oh_expect(c, 0, want);
    oh_run(c, "Cast float -> int4 known values", OH_BOUND_EXACT);

    /* float -> e4m3fn without saturation: overflow is NaN (0x7F), inf too. */
    c = oh_new("CastLike", 21);
    const float f[] = {448, 1e6f, -INFINITY, 0.1f};
    const uint8_t like = 0, e4[] = {0x7E, 0x7F, 0xFF, 0x1D};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, f);
    oh_const(c, VKML_DTYPE_FLOAT8E4M3FN, 0, NULL, &like);
    oh_attr_int(c, "saturate", 0);
    oh_expect_gpu(c, false);
    oh_expect(c, 0, e4);
    oh_run(c, "CastLike float -> float8e4m3fn saturate=0", OH_BOUND_EXACT);

    /* uint4 -> uint8. */
    c = oh_new("Cast", 21);
    const uint8_t u4[] = {0x21, 0xF0, 0x07}, u8[] = {1, 2, 0, 15, 7};
    oh_const(c, VKML_DTYPE_UINT4, 1, (int64_t[]){5}, u4);
    oh_attr_int(c, "to", VKML_DTYPE_UINT8);
    oh_expect_gpu(c, false);
    oh_expect(c, 0, u8);
    oh_run(c, "Cast uint4 -> uint8", OH_BOUND_EXACT);
}

/* QuantizeLinear to int4 per axis (test_quantizelinear_int4), to e4m3fn; Dequantize back. */
static void test_quant_known(void)
{
    oh_case *c = oh_new("QuantizeLinear", 21);
    const float x[] = {0, 2.5f, 4.8f, 8.6f, -30, -20, 6, 9, 12, 15, 16, 40};
    const float s[] = {2, 3, 4};
    const int64_t yv[] = {1, 2, 3, 5, -8, -6, 3, 4, 4, 5, 5, 7};
    uint8_t z[2] = {0}, y[6] = {0};
    for (int i = 0; i < 3; i++)
        vkml_packed_set(z, (size_t)i, 4, 1);
    for (int i = 0; i < 12; i++)
        vkml_packed_set(y, (size_t)i, 4, vkml_small_int_encode(VKML_DTYPE_INT4, yv[i]));
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){3, 4}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, s);
    oh_const(c, VKML_DTYPE_INT4, 1, (int64_t[]){3}, z);
    oh_attr_int(c, "axis", 0);
    oh_expect_gpu(c, false);
    oh_expect(c, 0, y);
    oh_run(c, "QuantizeLinear int4 per axis", OH_BOUND_EXACT);

    c = oh_new("QuantizeLinear", 21);
    const float xf[] = {0, 1, 2, 100000, 200}, sf = 2;
    const uint8_t zf = 0, yf[] = {0x00, 0x30, 0x38, 0x7E, 0x6C}; /* 0 .5 1 448 96 */
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, xf);
    oh_const(c, VKML_DTYPE_FLOAT, 0, NULL, &sf);
    oh_const(c, VKML_DTYPE_FLOAT8E4M3FN, 1, (int64_t[]){1}, &zf);
    oh_expect_gpu(c, false);
    oh_expect(c, 0, yf);
    oh_run(c, "QuantizeLinear float8e4m3fn", OH_BOUND_EXACT);

    /* Dequantize, random, blocked (axis 1, block 3) on every small quantized type. */
    static const vkml_dtype qt[] = {VKML_DTYPE_FLOAT8E4M3FN, VKML_DTYPE_FLOAT8E5M2,
                                    VKML_DTYPE_INT4,         VKML_DTYPE_UINT4,
                                    VKML_DTYPE_INT2,         VKML_DTYPE_FLOAT4E2M1};
    char label[96];
    for (size_t t = 0; t < VKML_ARRAY_SIZE(qt); t++) {
        c = oh_new("DequantizeLinear", 21);
        oh_input(c, qt[t], 2, (int64_t[]){5, 7}, 0, 3);
        oh_const_random(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){5, 3}, 0.5, 2);
        oh_const_random(c, qt[t], 2, (int64_t[]){5, 3}, 0, 1);
        oh_attr_int(c, "axis", 1);
        oh_attr_int(c, "block_size", 3);
        oh_expect_gpu(c, false);
        snprintf(label, sizeof(label), "DequantizeLinear %s blocked", vkml_dtype_name(qt[t]));
        oh_run(c, label, OH_BOUND_EXACT);
        c = oh_new("QuantizeLinear", 21);
        oh_input(c, VKML_DTYPE_FLOAT, 4, odd4, -10, 10);
        oh_const_random(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){7}, 0.5, 2);
        oh_const_random(c, qt[t], 1, (int64_t[]){7}, 0, 1);
        oh_attr_int(c, "axis", 1);
        oh_expect_gpu(c, false);
        snprintf(label, sizeof(label), "QuantizeLinear %s per axis", vkml_dtype_name(qt[t]));
        oh_run(c, label, OH_BOUND_EXACT);
    }
}

/* Bad attributes are refused at load, naming op and reason. */
static void test_errors(void)
{
    oh_case *c = oh_new("Cast", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_attr_int(c, "to", VKML_DTYPE_FLOAT8E5M2);
    oh_attr_int(c, "saturate", 2);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "saturate");
    oh_run(c, "Cast saturate=2", 0);

    c = oh_new("Cast", 25);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_attr_int(c, "to", VKML_DTYPE_FLOAT8E8M0);
    oh_attr_string(c, "round_mode", "sideways");
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "round_mode");
    oh_run(c, "Cast round_mode=sideways", 0);

    c = oh_new("Cast", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_attr_int(c, "to", 27);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "is not a type");
    oh_run(c, "Cast to 27", 0);

    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 1, 2);
    oh_attr_int(c, "saturate", -1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "saturate");
    oh_run(c, "QuantizeLinear saturate=-1", 0);

    c = oh_new("QuantizeLinear", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_const_random(c, VKML_DTYPE_FLOAT, 0, NULL, 1, 2);
    oh_attr_int(c, "output_dtype", VKML_DTYPE_FLOAT8E8M0);
    oh_expect_error(c, VKML_ERROR_UNSUPPORTED, "quantizing to float8e8m0");
    oh_run(c, "QuantizeLinear to e8m0", 0);
}

int main(void)
{
    test_round_trips();
    test_boundaries();
    test_sizes();
    test_cast_random();
    test_cast_known();
    test_quant_known();
    test_errors();
    /* this file's own CHECKs count in its own test_failures (testutil.h), not the harness's */
    int harness = oh_finish();
    return test_finish("dtypes") || harness;
}
