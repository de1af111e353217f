#version 450
// Split-K's second pass for the integer products (common/qprod.glsl with QSPLIT=2): an
// invocation a result of Y, its slices' int32 parts summed (wrapping: the same bits as one
// pass over K) and stored by qp_result (a conv's bias, QLinear's requantization).
#extension GL_GOOGLE_include_directive : require
#define QSPLIT 2
#include "qprod.glsl"
#include "index.glsl"

void main()
{
    uint i = flat_index();
    qp_locate(0u);
    uint plane = qp_m * qp_n;
    if (i >= qp_batches() * plane)
        return;
    uint z = i / plane, e = i % plane;
    qp_locate(z * p.splits);
    int acc = 0;
    for (uint s = 0; s < p.splits; s++)
        acc += part[(z * p.splits + s) * plane + e];
    uint row = e / qp_n, col = e % qp_n;
    qp_result(row, col, acc, qp_multiplier(row, col));
}
