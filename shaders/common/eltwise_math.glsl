// Float helpers GLSL lacks, shared by the elementwise kernels.
#ifndef VKML_ELTWISE_MATH_GLSL
#define VKML_ELTWISE_MATH_GLSL

// erf to about 1.3e-7 relative (fits made for vkml by least squares on Chebyshev nodes):
// |x| <= 1: x * P(x^2), P in u = 2x^2 - 1; 1 < |x| < 4: 1 - exp(Q(|x|) - x^2) with
// Q(t) ~ log(erfc(t)) + t^2 in u = (2t - 5) / 3; beyond 4, erf rounds to +-1 in float.
float erf_approx(float x)
{
    float t = abs(x);
    if (t <= 1.0) {
        float u = 2.0 * t * t - 1.0;
        float r = -7.557491699e-08;
        r = r * u + 1.231640113e-06;
        r = r * u - 1.753682409e-05;
        r = r * u + 2.175119880e-04;
        r = r * u - 2.285485622e-03;
        r = r * u + 1.985249855e-02;
        r = r * u - 1.405360848e-01;
        r = r * u + 9.654687643e-01;
        return x * r;
    }
    if (t >= 4.0)
        return sign(x);
    float u = (2.0 * t - 5.0) / 3.0;
    float q = 1.537463504e-06;
    q = q * u - 2.367065690e-06;
    q = q * u - 6.758696145e-06;
    q = q * u + 4.728429849e-05;
    q = q * u - 2.174813708e-04;
    q = q * u + 8.763929363e-04;
    q = q * u - 3.196593141e-03;
    q = q * u + 1.096297335e-02;
    q = q * u - 3.664597869e-02;
    q = q * u + 1.262390763e-01;
    q = q * u - 5.290211439e-01;
    q = q * u - 1.556815267e+00;
    return sign(x) * (1.0 - exp(q - t * t));
}

// pow with C's rules where GLSL's leaves them undefined: negative bases with integral
// exponents, zero bases, y == 0.
float pow_c(float x, float y)
{
    if (y == 0.0)
        return 1.0;
    float r = pow(abs(x), y);
    if (x < 0.0) {
        if (floor(y) != y)
            return uintBitsToFloat(0x7fc00000u); // NaN
        if (mod(y, 2.0) == 1.0)
            r = -r;
    }
    return r;
}

// log(1 + z) and exp(x) - 1 accurate for small arguments: Taylor series near 0 (error
// under 1e-9 relative there), where exp and log of numbers near 1 lose the low bits
// (lavapipe's log has ~1e-7 absolute error, too much for log(1 + 1e-4)).
float log1p_f(float z)
{
    if (abs(z) >= 0.1)
        return log(1.0 + z);
    float r = 1.0 / 9.0;
    r = r * -z + 1.0 / 8.0;
    r = r * -z + 1.0 / 7.0;
    r = r * -z + 1.0 / 6.0;
    r = r * -z + 1.0 / 5.0;
    r = r * -z + 1.0 / 4.0;
    r = r * -z + 1.0 / 3.0;
    r = r * -z + 1.0 / 2.0;
    r = r * -z + 1.0;
    return r * z;
}

float expm1_f(float x)
{
    if (abs(x) >= 0.5)
        return exp(x) - 1.0;
    float r = 1.0 / 362880.0;
    r = r * x + 1.0 / 40320.0;
    r = r * x + 1.0 / 5040.0;
    r = r * x + 1.0 / 720.0;
    r = r * x + 1.0 / 120.0;
    r = r * x + 1.0 / 24.0;
    r = r * x + 1.0 / 6.0;
    r = r * x + 1.0 / 2.0;
    r = r * x + 1.0;
    return r * x;
}

// tanh from expm1 of a non-positive argument: no overflow, full precision near 0.
float tanh_f(float x)
{
    float e = expm1_f(-2.0 * abs(x));
    return sign(x) * (-e / (2.0 + e));
}

// log(1 + exp(x)) without overflow.
float softplus_f(float x)
{
    return x > 0.0 ? x + log1p_f(exp(-x)) : log1p_f(exp(x));
}

#endif
