/*
 * The elementwise family on the op harness (suite 'ops'): every op x every dtype it takes,
 * on odd broadcast shapes, the Vulkan devices against the CPU kernel; known values where
 * rounding rules matter (Round half to even, Mod signs, Cast saturation, integer
 * division by zero); broadcasts of every rank pairing up to 6-D and a grid too large for
 * one dimension of workgroups; bad attributes and shapes refused with a message naming
 * the reason; bfloat16 refused by the devices, and a malformed node failing their session.
 */
#include "op_harness.h"

#include <math.h>
#include <stdio.h>

static const int64_t shape_a[] = {5, 7, 11, 13}, shape_b[] = {7, 1, 13}, shape_c[] = {5, 1, 11, 1};

static const vkml_dtype floats[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE};
static const vkml_dtype ints[] = {VKML_DTYPE_INT8,   VKML_DTYPE_INT16, VKML_DTYPE_INT32,
                                  VKML_DTYPE_INT64,  VKML_DTYPE_UINT8, VKML_DTYPE_UINT16,
                                  VKML_DTYPE_UINT32, VKML_DTYPE_UINT64};

static bool is_unsigned(vkml_dtype dt)
{
    return dt == VKML_DTYPE_UINT8 || dt == VKML_DTYPE_UINT16 || dt == VKML_DTYPE_UINT32 ||
           dt == VKML_DTYPE_UINT64 || dt == VKML_DTYPE_BOOL;
}

typedef struct unary_case {
    const char *op;
    int opset;
    double lo, hi;
    double bound;
    bool gpu_f64; /* a double variant exists (GLSL has the builtin) */
} unary_case;

static void test_unary_floats(void)
{
    static const unary_case cases[] = {
        {"Abs", 13, -5, 5, OH_BOUND_EXACT, true},
        {"Neg", 13, -5, 5, OH_BOUND_EXACT, true},
        {"Exp", 13, -10, 10, OH_BOUND_TRANSCENDENTAL, false},
        {"Log", 13, 0.01, 100, OH_BOUND_TRANSCENDENTAL, false},
        {"Sqrt", 13, 0, 100, OH_BOUND_EXACT, true},
        {"Reciprocal", 13, 0.5, 4, OH_BOUND_EXACT, true},
        {"Floor", 13, -50, 50, OH_BOUND_EXACT, true},
        {"Ceil", 13, -50, 50, OH_BOUND_EXACT, true},
        {"Round", 22, -50, 50, OH_BOUND_EXACT, true},
        {"Sign", 13, -5, 5, OH_BOUND_EXACT, true},
        {"Erf", 13, -5, 5, OH_BOUND_EXACT, false},
        {"Sin", 22, -6, 6, OH_BOUND_TRANSCENDENTAL, false},
        {"Cos", 22, -6, 6, OH_BOUND_TRANSCENDENTAL, false},
        {"Tan", 22, -1.4, 1.4, OH_BOUND_TRANSCENDENTAL, false},
        {"Asin", 22, -0.99, 0.99, OH_BOUND_TRANSCENDENTAL, false},
        {"Acos", 22, -0.99, 0.99, OH_BOUND_TRANSCENDENTAL, false},
        {"Atan", 22, -10, 10, OH_BOUND_TRANSCENDENTAL, false},
        {"Sinh", 22, -5, 5, OH_BOUND_TRANSCENDENTAL, false},
        {"Cosh", 22, -5, 5, OH_BOUND_TRANSCENDENTAL, false},
        {"Asinh", 22, -10, 10, OH_BOUND_TRANSCENDENTAL, false},
        {"Acosh", 22, 1, 10, OH_BOUND_TRANSCENDENTAL, false},
        {"Atanh", 22, -0.99, 0.99, OH_BOUND_TRANSCENDENTAL, false},
        {"Softplus", 22, -20, 20, OH_BOUND_TRANSCENDENTAL, false},
        {"Softsign", 22, -20, 20, OH_BOUND_EXACT, true},
        {"Mish", 22, -20, 20, OH_BOUND_TRANSCENDENTAL, false},
        {"Elu", 22, -5, 5, OH_BOUND_TRANSCENDENTAL, false},
        {"Selu", 22, -5, 5, OH_BOUND_TRANSCENDENTAL, false},
        {"Celu", 12, -5, 5, OH_BOUND_TRANSCENDENTAL, false},
        {"LeakyRelu", 16, -5, 5, OH_BOUND_EXACT, true},
        {"ThresholdedRelu", 22, -5, 5, OH_BOUND_EXACT, true},
        {"HardSigmoid", 22, -5, 5, OH_BOUND_EXACT, true},
        {"HardSwish", 22, -5, 5, OH_BOUND_EXACT, true},
        {"Gelu", 20, -5, 5, OH_BOUND_TRANSCENDENTAL, false},
        {"Relu", 14, -5, 5, OH_BOUND_EXACT, true},
        {"Sigmoid", 13, -30, 30, OH_BOUND_TRANSCENDENTAL, false},
        {"Tanh", 13, -10, 10, OH_BOUND_TRANSCENDENTAL, false},
    };
    char label[96];
    for (size_t i = 0; i < VKML_ARRAY_SIZE(cases); i++) {
        for (size_t t = 0; t < VKML_ARRAY_SIZE(floats); t++) {
            const unary_case *u = &cases[i];
            oh_case *c = oh_new(u->op, u->opset);
            oh_input(c, floats[t], 4, shape_a, u->lo, u->hi);
            if (floats[t] == VKML_DTYPE_DOUBLE && !u->gpu_f64)
                oh_expect_gpu(c, false);
            snprintf(label, sizeof label, "%s %s", u->op, vkml_dtype_name(floats[t]));
            oh_run(c, label, oh_bound(floats[t], u->bound));
        }
    }
    oh_case *c = oh_new("Gelu", 20);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -5, 5);
    oh_attr_string(c, "approximate", "tanh");
    oh_run(c, "Gelu tanh f32", OH_BOUND_TRANSCENDENTAL);
    c = oh_new("LeakyRelu", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -5, 5);
    oh_attr_float(c, "alpha", 0.3f);
    oh_run(c, "LeakyRelu alpha 0.3", OH_BOUND_EXACT);
    c = oh_new("IsNaN", 20);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -5, 5);
    oh_run(c, "IsNaN f32", OH_BOUND_EXACT);
}

static void test_unary_ints(void)
{
    const char *ops[] = {"Abs", "Neg", "Sign", "Relu", "BitwiseNot"};
    char label[96];
    for (size_t i = 0; i < VKML_ARRAY_SIZE(ops); i++)
        for (size_t t = 0; t < VKML_ARRAY_SIZE(ints); t++) {
            bool signed_only = i == 1 || i == 3;
            if (signed_only && is_unsigned(ints[t]))
                continue;
            oh_case *c = oh_new(ops[i], 18);
            oh_input(c, ints[t], 4, shape_a, is_unsigned(ints[t]) ? 0 : -100, 100);
            snprintf(label, sizeof label, "%s %s", ops[i], vkml_dtype_name(ints[t]));
            oh_run(c, label, OH_BOUND_EXACT);
        }
    oh_case *c = oh_new("Not", 1);
    oh_input(c, VKML_DTYPE_BOOL, 4, shape_a, 0, 1);
    oh_run(c, "Not bool", OH_BOUND_EXACT);
}

/* A binary op on broadcast shapes for one dtype; divisors of floats kept away from 0. */
static void binary(const char *op, int opset, vkml_dtype dt, const char *attr, int64_t v)
{
    char label[96];
    bool fl = dt == VKML_DTYPE_FLOAT || dt == VKML_DTYPE_FLOAT16 || dt == VKML_DTYPE_DOUBLE;
    double lo = dt == VKML_DTYPE_BOOL ? 0
                : is_unsigned(dt)     ? 0
                                      : -20,
           hi = dt == VKML_DTYPE_BOOL ? 1 : 20;
    oh_case *c = oh_new(op, opset);
    oh_input(c, dt, 4, shape_a, lo, hi);
    if (fl && (op[0] == 'D' || op[0] == 'M'))
        oh_input(c, dt, 3, shape_b, 0.5, 4);
    else
        oh_input(c, dt, 3, shape_b, lo, hi);
    if (attr)
        oh_attr_int(c, attr, v);
    snprintf(label, sizeof label, "%s%s %s", op, attr ? " fmod" : "", vkml_dtype_name(dt));
    oh_run(c, label, oh_bound(dt, OH_BOUND_EXACT));
}

/* float32 fmod of dividends at and next to whole multiples of the divisor, where the
 * remainder is 0, tiny or nearly |z|: a GPU that rounds z * q before subtracting (an fma
 * Vulkan does not promise to fuse) lands a whole |z| off there unless the remainder is
 * computed exactly (b_fmod_exact). */
static void fmod_near_multiples(void)
{
    static const float divisors[] = {0.1f, 0.3f, 0.7f, 1.1f, 2.3f, 3.7f, -0.9f};
    enum { K = 41, STEPS = 5, N = 7 * K * STEPS };
    float x[N], z[N];
    int n = 0;
    for (int d = 0; d < 7; d++)
        for (int k = -20; k <= 20; k++) {
            float m = (float)k * divisors[d];
            float near[STEPS] = {m, nextafterf(m, INFINITY), nextafterf(m, -INFINITY),
                                 nextafterf(nextafterf(m, INFINITY), INFINITY),
                                 nextafterf(nextafterf(m, -INFINITY), -INFINITY)};
            for (int s = 0; s < STEPS; s++, n++) {
                x[n] = near[s];
                z[n] = divisors[d];
            }
        }
    oh_case *c = oh_new("Mod", 13);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){N}, x);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){N}, z);
    oh_attr_int(c, "fmod", 1);
    oh_run(c, "Mod fmod float near whole multiples", OH_BOUND_EXACT);
}

static void test_binary(void)
{
    const char *arith[] = {"Add",   "Sub",  "Mul",         "Div",     "Min",           "Max",
                           "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(arith); i++) {
        int opset = i < 4 ? 14 : i < 6 ? 13 : i == 6 ? 19 : 16;
        for (size_t t = 0; t < VKML_ARRAY_SIZE(floats); t++)
            binary(arith[i], opset, floats[t], NULL, 0);
        for (size_t t = 0; t < VKML_ARRAY_SIZE(ints); t++)
            binary(arith[i], opset, ints[t], NULL, 0);
    }
    for (size_t t = 0; t < VKML_ARRAY_SIZE(ints); t++) {
        binary("Mod", 13, ints[t], NULL, 0);
        binary("Mod", 13, ints[t], "fmod", 1);
        binary("BitwiseAnd", 18, ints[t], NULL, 0);
        binary("BitwiseOr", 18, ints[t], NULL, 0);
        binary("BitwiseXor", 18, ints[t], NULL, 0);
    }
    for (size_t t = 0; t < VKML_ARRAY_SIZE(floats); t++)
        binary("Mod", 13, floats[t], "fmod", 1);
    fmod_near_multiples();
    const char *logic[] = {"And", "Or", "Xor", "Equal"};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(logic); i++)
        binary(logic[i], i < 3 ? 7 : 19, VKML_DTYPE_BOOL, NULL, 0);
    for (int left = 0; left < 2; left++)
        for (size_t t = 4; t < VKML_ARRAY_SIZE(ints); t++) {
            oh_case *c = oh_new("BitShift", 11);
            oh_input(c, ints[t], 4, shape_a, 0, 255);
            oh_input(c, ints[t], 3, shape_b, 0, 70); /* shifts past the width give 0 */
            oh_attr_string(c, "direction", left ? "LEFT" : "RIGHT");
            oh_run(c, left ? "BitShift left" : "BitShift right", OH_BOUND_EXACT);
        }
    oh_case *c = oh_new("PRelu", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -5, 5);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){11, 1}, 0, 1);
    oh_run(c, "PRelu f32 slope [11,1]", OH_BOUND_EXACT);
}

static void test_pow(void)
{
    oh_case *c = oh_new("Pow", 15);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, 0.5, 2);
    oh_input(c, VKML_DTYPE_FLOAT, 3, shape_b, -3, 3);
    oh_run(c, "Pow f32", OH_BOUND_TRANSCENDENTAL);
    c = oh_new("Pow", 15);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -3, 3);
    oh_input(c, VKML_DTYPE_INT64, 3, shape_b, -3, 3);
    oh_run(c, "Pow f32 ^ int64 (negative bases)", OH_BOUND_TRANSCENDENTAL);
    c = oh_new("Pow", 15);
    oh_input(c, VKML_DTYPE_INT32, 4, shape_a, -5, 5);
    oh_input(c, VKML_DTYPE_INT32, 3, shape_b, -2, 9);
    oh_run(c, "Pow int32", OH_BOUND_EXACT);
}

static void test_variadic(void)
{
    const char *ops[] = {"Sum", "Mean", "Min", "Max"};
    char label[96];
    for (size_t i = 0; i < VKML_ARRAY_SIZE(ops); i++) {
        vkml_dtype dts[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16,
                            i < 2 ? VKML_DTYPE_DOUBLE : VKML_DTYPE_INT32};
        for (size_t t = 0; t < VKML_ARRAY_SIZE(dts); t++) {
            oh_case *c = oh_new(ops[i], 13);
            oh_input(c, dts[t], 3, shape_b, -10, 10);
            oh_input(c, dts[t], 4, shape_a, -10, 10);
            oh_input(c, dts[t], 4, shape_c, -10, 10);
            oh_input(c, dts[t], 0, NULL, -10, 10);
            snprintf(label, sizeof label, "%s of 4 %s", ops[i], vkml_dtype_name(dts[t]));
            oh_run(c, label, oh_bound(dts[t], OH_BOUND_SUM));
        }
        oh_case *c = oh_new(ops[i], 13);
        oh_input(c, VKML_DTYPE_FLOAT, 3, shape_b, -10, 10);
        oh_run(c, "one input", OH_BOUND_EXACT);
    }
}

static void test_clip_where_dropout(void)
{
    oh_case *c = oh_new("Clip", 6);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -5, 5);
    oh_attr_float(c, "min", -1);
    oh_attr_float(c, "max", 2);
    oh_run(c, "Clip opset 6 attributes", OH_BOUND_EXACT);
    for (size_t t = 0; t < VKML_ARRAY_SIZE(ints); t++) {
        c = oh_new("Clip", 13);
        oh_input(c, ints[t], 4, shape_a, 0, 100);
        oh_const_random(c, ints[t], 0, NULL, 10, 20);
        oh_run(c, "Clip int min only", OH_BOUND_EXACT);
    }
    c = oh_new("Clip", 13);
    oh_input(c, VKML_DTYPE_FLOAT16, 4, shape_a, -5, 5);
    oh_skip_input(c);
    oh_const_random(c, VKML_DTYPE_FLOAT16, 0, NULL, 0, 1);
    oh_run(c, "Clip f16 max only", OH_BOUND_FP16);
    const vkml_dtype where_types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16, VKML_DTYPE_INT64,
                                      VKML_DTYPE_UINT8, VKML_DTYPE_BOOL};
    for (size_t t = 0; t < VKML_ARRAY_SIZE(where_types); t++) {
        c = oh_new("Where", 16);
        oh_input(c, VKML_DTYPE_BOOL, 3, shape_b, 0, 1);
        oh_input(c, where_types[t], 4, shape_a, 0, 100);
        oh_input(c, where_types[t], 4, shape_c, 0, 1);
        oh_run(c, "Where broadcast", OH_BOUND_EXACT);
    }
    c = oh_new("Dropout", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -5, 5);
    oh_outputs(c, 2);
    oh_run(c, "Dropout with mask", OH_BOUND_EXACT);
}

static void test_cast(void)
{
    const vkml_dtype all[] = {VKML_DTYPE_FLOAT,  VKML_DTYPE_FLOAT16, VKML_DTYPE_DOUBLE,
                              VKML_DTYPE_INT8,   VKML_DTYPE_INT16,   VKML_DTYPE_INT32,
                              VKML_DTYPE_INT64,  VKML_DTYPE_UINT8,   VKML_DTYPE_UINT16,
                              VKML_DTYPE_UINT32, VKML_DTYPE_UINT64,  VKML_DTYPE_BOOL};
    char label[96];
    for (size_t s = 0; s < VKML_ARRAY_SIZE(all); s++)
        for (size_t d = 0; d < VKML_ARRAY_SIZE(all); d++) {
            oh_case *c = oh_new("Cast", 21);
            oh_input(c, all[s], 3, shape_b,
                     all[s] == VKML_DTYPE_BOOL ? 0
                     : is_unsigned(all[s])     ? 0
                                               : -300,
                     all[s] == VKML_DTYPE_BOOL ? 1 : 300);
            oh_attr_int(c, "to", all[d]);
            snprintf(label, sizeof label, "Cast %s to %s", vkml_dtype_name(all[s]),
                     vkml_dtype_name(all[d]));
            oh_run(c, label, OH_BOUND_FP16);
        }
    /* Saturation and truncation, NaN to 0. */
    oh_case *c = oh_new("Cast", 21);
    const float x[] = {300.7f, -300.7f, 2.9f, -2.9f, 0.0f / 0.0f};
    const int8_t y[] = {127, -128, 2, -2, 0};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, x);
    oh_attr_int(c, "to", VKML_DTYPE_INT8);
    oh_expect(c, 0, y);
    oh_run(c, "Cast float to int8 saturates", OH_BOUND_EXACT);
    c = oh_new("CastLike", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 4, shape_a, -100, 100);
    oh_input(c, VKML_DTYPE_INT32, 1, (int64_t[]){1}, 0, 1);
    oh_run(c, "CastLike float to int32", OH_BOUND_EXACT);
}

static void test_known_values(void)
{
    oh_case *c = oh_new("Round", 22);
    const float r[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f}, ry[] = {0, 2, 2, -0.0f, -2, 2};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){6}, r);
    oh_expect(c, 0, ry);
    oh_run(c, "Round half to even", OH_BOUND_EXACT);

    const int32_t a[] = {7, -7, 7, -7, 5, -2147483647 - 1}, b[] = {3, 3, -3, -3, 0, -1};
    const int32_t mod[] = {1, 2, -2, -1, 0, 0}, fmod[] = {1, -1, 1, -1, 0, 0};
    const int32_t div[] = {2, -2, -2, 2, 0, -2147483647 - 1};
    const char *ops[] = {"Mod", "Mod", "Div"};
    const int32_t *want[] = {mod, fmod, div};
    for (int i = 0; i < 3; i++) {
        c = oh_new(ops[i], 13);
        oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){6}, a);
        oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){6}, b);
        if (i == 1)
            oh_attr_int(c, "fmod", 1);
        oh_expect(c, 0, want[i]);
        oh_run(c,
               i == 0   ? "Mod sign of divisor, x%0 = 0"
               : i == 1 ? "fmod sign of dividend"
                        : "Div by 0 and MIN/-1",
               OH_BOUND_EXACT);
    }
    c = oh_new("Sum", 13);
    const double s1[] = {1, 2}, s2[] = {10}, s3[] = {100, 200}, sy[] = {111, 212};
    oh_const(c, VKML_DTYPE_DOUBLE, 1, (int64_t[]){2}, s1);
    oh_const(c, VKML_DTYPE_DOUBLE, 1, (int64_t[]){1}, s2);
    oh_const(c, VKML_DTYPE_DOUBLE, 1, (int64_t[]){2}, s3);
    oh_expect(c, 0, sy);
    oh_run(c, "Sum of 3 double", OH_BOUND_EXACT);
}

static void expect_error(oh_case *c, vkml_status st, const char *text, const char *label)
{
    oh_expect_error(c, st, text);
    oh_run(c, label, OH_BOUND_EXACT);
}

static void test_errors(void)
{
    oh_case *c = oh_new("Gelu", 20);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, -1, 1);
    oh_attr_string(c, "approximate", "erf");
    expect_error(c, VKML_ERROR_INVALID_MODEL, "approximate", "Gelu approximate=erf");
    c = oh_new("BitShift", 11);
    oh_input(c, VKML_DTYPE_UINT8, 1, (int64_t[]){3}, 0, 9);
    oh_input(c, VKML_DTYPE_UINT8, 1, (int64_t[]){3}, 0, 9);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "direction", "BitShift without direction");
    c = oh_new("Mod", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 1, 2);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 1, 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "fmod=1", "Mod of floats without fmod");
    c = oh_new("Mod", 13);
    oh_input(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, 1, 2);
    oh_input(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, 1, 2);
    oh_attr_int(c, "fmod", 2);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "fmod", "Mod fmod=2");
    c = oh_new("Cast", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 1, 2);
    oh_attr_int(c, "to", 14);
    expect_error(c, VKML_ERROR_UNSUPPORTED, "complex64", "Cast to complex64");
    c = oh_new("Cast", 21);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 1, 2);
    oh_attr_int(c, "to", 99);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "not a type", "Cast to 99");
    c = oh_new("Where", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "not bool", "Where of a float condition");
    c = oh_new("Sum", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){4}, 0, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "do not broadcast", "Sum of [3] and [4]");
    c = oh_new("Add", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_input(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, 0, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "different dtypes", "Add float + int32");
    c = oh_new("Clip", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){2}, 0, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "scalar", "Clip of a non-scalar min");
    c = oh_new("PRelu", 16);
    oh_input(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, 0, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, 0, 1);
    expect_error(c, VKML_ERROR_INVALID_MODEL, "slope", "PRelu slope larger than X");
}

/* The dense kernels' DENSE_ELEMS (4) elements per invocation, strided by the grid: counts
 * around a multiple of 4, and one past 4 x 65,535 workgroups of 64 (the grid spills into
 * y): a unary op, Cast to float16 and back, a same-shape Add (dims merged into one) and a
 * scalar Mul. */
static void test_dense_counts(void)
{
    static const int64_t counts[] = {1, 3, 4, 5, 4 * 65535 * 64 + 5};
    char label[96];
    for (size_t i = 0; i < VKML_ARRAY_SIZE(counts); i++) {
        int64_t n = counts[i];
        oh_case *c = oh_new("Neg", 13);
        oh_input(c, VKML_DTYPE_FLOAT, 1, &n, -10, 10);
        snprintf(label, sizeof label, "dense Neg of %lld", (long long)n);
        oh_run(c, label, OH_BOUND_EXACT);
        for (int to = 0; to < 2; to++) {
            vkml_dtype src = to ? VKML_DTYPE_FLOAT16 : VKML_DTYPE_FLOAT;
            c = oh_new("Cast", 21);
            oh_input(c, src, 1, &n, -300, 300);
            oh_attr_int(c, "to", to ? VKML_DTYPE_FLOAT : VKML_DTYPE_FLOAT16);
            snprintf(label, sizeof label, "dense Cast %s of %lld", vkml_dtype_name(src),
                     (long long)n);
            oh_run(c, label, OH_BOUND_FP16);
        }
        c = oh_new("Add", 14);
        oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, n}, -10, 10);
        oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){1, n}, -10, 10);
        snprintf(label, sizeof label, "dense Add of %lld", (long long)n);
        oh_run(c, label, OH_BOUND_EXACT);
        c = oh_new("Mul", 14);
        oh_input(c, VKML_DTYPE_FLOAT, 1, &n, -10, 10);
        oh_input(c, VKML_DTYPE_FLOAT, 0, NULL, -10, 10);
        snprintf(label, sizeof label, "dense Mul by a scalar of %lld", (long long)n);
        oh_run(c, label, OH_BOUND_EXACT);
    }
}

/* Add, Sub and Mul of a one-element constant (the unary kernel with it in the push block,
 * ops_elementwise.c's scalar_operand): either side (Sub: c - x stays binary), constants of
 * rank 0 to 2 that add no dims, and one of rank 3 over a rank-2 x (binary: it adds a dim). */
static void test_scalar_constants(void)
{
    static const char *const ops[] = {"Add", "Sub", "Mul"};
    static const int64_t x_dims[] = {3, 67}, c_dims[] = {1, 1, 1};
    char label[96];
    for (size_t o = 0; o < VKML_ARRAY_SIZE(ops); o++)
        for (size_t t = 0; t < VKML_ARRAY_SIZE(floats); t++)
            for (int c_rank = 0; c_rank <= 3; c_rank++)
                for (int c_first = 0; c_first < 2; c_first++) {
                    oh_case *c = oh_new(ops[o], 14);
                    if (c_first)
                        oh_const_random(c, floats[t], c_rank, c_dims, -4, 4);
                    oh_input(c, floats[t], 2, x_dims, -10, 10);
                    if (!c_first)
                        oh_const_random(c, floats[t], c_rank, c_dims, -4, 4);
                    snprintf(label, sizeof label, "%s %s constant of rank %d %s", ops[o],
                             c_first ? "first," : "second,", c_rank, vkml_dtype_name(floats[t]));
                    oh_run(c, label,
                           floats[t] == VKML_DTYPE_FLOAT ? OH_BOUND_EXACT : OH_BOUND_FP16);
                }
}

/* Shrink and Swish in float32 and float16, and Shrink's known values. */
static void test_shrink_swish(void)
{
    const int64_t dims[] = {5, 7, 11, 13};
    static const vkml_dtype types[] = {VKML_DTYPE_FLOAT, VKML_DTYPE_FLOAT16};
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        vkml_dtype t = types[k];
        char label[64];
        oh_case *c = oh_new("Shrink", 9);
        oh_input(c, t, 4, dims, -3, 3);
        oh_attr_float(c, "lambd", 1.0f);
        oh_attr_float(c, "bias", 0.5f);
        snprintf(label, sizeof(label), "Shrink %s", vkml_dtype_name(t));
        oh_run(c, label, oh_bound(t, OH_BOUND_EXACT));
        c = oh_new("Swish", 24);
        oh_input(c, t, 4, dims, -6, 6);
        oh_attr_float(c, "alpha", 1.5f);
        snprintf(label, sizeof(label), "Swish %s", vkml_dtype_name(t));
        oh_run(c, label, oh_bound(t, OH_BOUND_TRANSCENDENTAL));
    }
    oh_case *c = oh_new("Shrink", 9);
    const float x[] = {-2, -0.25f, 0, 0.25f, 2}, y[] = {-1.5f, 0, 0, 0, 1.5f};
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){5}, x);
    oh_attr_float(c, "bias", 0.5f);
    oh_expect(c, 0, y);
    oh_run(c, "Shrink known values", OH_BOUND_EXACT);
}

/* Add with known values ([2,3] + [3]), then odd shapes and random data. */
static void test_add_broadcast(void)
{
    oh_case *c = oh_new("Add", 14);
    const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 20, 30}, y[] = {11, 22, 33, 14, 25, 36};
    oh_const(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, a);
    oh_const(c, VKML_DTYPE_FLOAT, 1, (int64_t[]){3}, b);
    oh_expect(c, 0, y);
    oh_run(c, "Add [2,3]+[3] known values", OH_BOUND_EXACT);

    c = oh_new("Add", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 4, (int64_t[]){5, 7, 11, 13}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){7, 1, 13}, -1, 1);
    oh_run(c, "Add f32 [5,7,11,13]+[7,1,13]", OH_BOUND_EXACT);

    /* int32 wraps; the devices may refuse it (reported, not a failure). */
    c = oh_new("Add", 14);
    const int32_t ia[] = {7, -7, 2147483647}, ib[] = {2, -2, 1}, iy[] = {9, -9, -2147483647 - 1};
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, ia);
    oh_const(c, VKML_DTYPE_INT32, 1, (int64_t[]){3}, ib);
    oh_expect(c, 0, iy);
    oh_expect_gpu(c, false);
    oh_run(c, "Add int32 wraps", OH_BOUND_EXACT);

    c = oh_new("Sigmoid", 13);
    oh_input(c, VKML_DTYPE_FLOAT, 3, (int64_t[]){5, 7, 11}, -30, 30);
    oh_run(c, "Sigmoid f32 [5,7,11]", OH_BOUND_TRANSCENDENTAL);

    c = oh_new("Add", 14);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){2, 3}, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, 2, (int64_t[]){4, 3}, -1, 1);
    oh_expect_error(c, VKML_ERROR_INVALID_MODEL, "do not broadcast");
    oh_run(c, "Add shapes that do not broadcast", OH_BOUND_EXACT);
}

/* A float32 binary op over two broadcast shapes (b in [blo, 2)). */
static void broadcast_case(const char *op, int ra, const int64_t *a, int rb, const int64_t *b,
                           float blo)
{
    char label[64];
    snprintf(label, sizeof(label), "%s broadcast r%d x r%d", op, ra, rb);
    oh_case *c = oh_new(op, 14);
    oh_input(c, VKML_DTYPE_FLOAT, ra, a, -1, 1);
    oh_input(c, VKML_DTYPE_FLOAT, rb, b, blo, 2);
    oh_run(c, label, OH_BOUND_EXACT);
}

/* Broadcasts of every rank pairing up to 6-D, a scalar, a grid over 65535 workgroups, and
 * the common activations on float32. */
static void test_broadcast_shapes(void)
{
    const int64_t a[] = {5, 7, 11, 13}, b[] = {7, 1, 13}, c[] = {5, 1, 11, 1}, d[] = {1, 7, 1, 13};
    broadcast_case("Add", 4, a, 3, b, -1);
    broadcast_case("Sub", 4, c, 4, d, -1);
    broadcast_case("Mul", 4, a, 4, a, -1);
    broadcast_case("Div", 3, b, 4, a, 0.5f); /* divisor in [0.5, 2) */
    broadcast_case("Add", 0, a, 4, a, -1);   /* a scalar */
    const int64_t e[] = {2, 3, 1, 4, 1, 5}, f[] = {3, 2, 4, 3, 1}, g[] = {5, 1, 11, 13},
                  h[] = {7, 1, 1};
    broadcast_case("Mul", 6, e, 5, f, -1);
    broadcast_case("Sub", 4, g, 3, h, -1);
    /* Over 65535 workgroups of 64: the grid spills into y. */
    const int64_t big[] = {1, 3, 1201, 1203}, row[] = {1203};
    broadcast_case("Add", 4, big, 1, row, -1);
    const char *unary[] = {"Relu", "Sigmoid", "Tanh"};
    for (size_t i = 0; i < VKML_ARRAY_SIZE(unary); i++) {
        oh_case *u = oh_new(unary[i], 14);
        oh_input(u, VKML_DTYPE_FLOAT, 4, a, -6, 6);
        oh_run(u, unary[i], i == 0 ? OH_BOUND_EXACT : OH_BOUND_TRANSCENDENTAL);
    }
}

/* A node left without its second input (after the support checks have seen it whole). */
static void drop_second_input(graph *g)
{
    g->nodes[0].n_inputs = 1;
}

/* The devices refuse bfloat16 with the reason; a session asked to record a malformed node
 * anyway fails naming it, and frees what it made. */
static void test_device_refusals(void)
{
    oh_case *c = oh_new("Add", 14);
    oh_input(c, VKML_DTYPE_BFLOAT16, 4, (int64_t[]){1, 2, 6, 6}, -1, 1);
    oh_input(c, VKML_DTYPE_BFLOAT16, 4, (int64_t[]){1, 2, 6, 6}, -1, 1);
    oh_expect_refusal(c, "bfloat16");
    oh_run(c, "Add bfloat16 refused", OH_BOUND_EXACT);

    c = oh_new("Sub", 14);
    oh_input(c, VKML_DTYPE_INT32, 4, (int64_t[]){1, 2, 6, 6}, -100, 100);
    oh_input(c, VKML_DTYPE_INT32, 4, (int64_t[]){1, 2, 6, 6}, -100, 100);
    oh_expect_session_error(c, drop_second_input, "Sub");
    oh_run(c, "Sub with an input missing: the session fails", OH_BOUND_EXACT);
}

int main(void)
{
    test_add_broadcast();
    test_broadcast_shapes();
    test_unary_floats();
    test_unary_ints();
    test_binary();
    test_pow();
    test_variadic();
    test_clip_where_dropout();
    test_cast();
    test_dense_counts();
    test_scalar_constants();
    test_shrink_swish();
    test_known_values();
    test_errors();
    test_device_refusals();
    return oh_finish();
}
