// div_rn(a, b): a / b correctly rounded (as the CPU divides). Vulkan lets float division
// be 2.5 ulp off (NVIDIA divides approximately), which moves quotients that are later
// rounded, floored or compared across the boundary. One correction step: the residual
// r = a - q * b is exact in one fma when q is within a few ulp, and q + r / b rounds to
// the nearest quotient; the corrected quotient is kept only when its residual is smaller
// (where fma is not fused, as on some CPU implementations, a correct q must not move). Infinite, NaN and zero-divisor quotients are returned as divided.
// A kernel that needs the double overload defines DIV_RN_DOUBLE (and needs shaderFloat64).
#ifndef VKML_DIV_RN_GLSL
#define VKML_DIV_RN_GLSL

#define VKML_DEFINE_DIV_RN(F)                                                              \
    F div_rn(F a, F b)                                                                     \
    {                                                                                      \
        precise F q = a / b;                                                               \
        if (isinf(q) || isnan(q) || b == F(0))                                             \
            return q;                                                                      \
        precise F r = fma(-q, b, a);                                                       \
        precise F c = q + r / b;                                                           \
        precise F rc = fma(-c, b, a);                                                      \
        return abs(rc) < abs(r) ? c : q;                                                   \
    }

VKML_DEFINE_DIV_RN(float)
#ifdef DIV_RN_DOUBLE
VKML_DEFINE_DIV_RN(double)
#endif

#endif
