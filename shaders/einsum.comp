#version 450
// Einsum of one or two operands in general form (lib/ops/einsum.h's plan): one invocation
// per output element sums, over the summed labels, A (times B) at strides per label, so
// transposes, diagonals, reductions and broadcasts are one loop. Up to 4 output and 4
// summed labels (size-1 labels dropped); the host bounds sum_count.
#define PUSH_EINSUM
#include "index.glsl"
#include "buffers.glsl"
#include "push.h"

DECLARE_IN(0, a)
DECLARE_IN(1, b)
DECLARE_OUT(2, y)

void main()
{
    uint i = flat_index();
    if (i >= p.count)
        return;
    uint rem = i, a_base = 0, b_base = 0;
    for (int d = int(p.out_rank) - 1; d >= 0; d--) {
        uint idx = rem % p.out_dims[d];
        rem /= p.out_dims[d];
        a_base += idx * p.a_out[d];
        b_base += idx * p.b_out[d];
    }
    A acc = A(0);
    for (uint s = 0; s < p.sum_count; s++) {
        uint r = s, ao = a_base, bo = b_base;
        for (int d = int(p.n_sum) - 1; d >= 0; d--) {
            uint idx = r % p.sum_dims[d];
            r /= p.sum_dims[d];
            ao += idx * p.a_sum[d];
            bo += idx * p.b_sum[d];
        }
        A v = A(a[ao]);
        if (p.two_operands != 0)
            v *= A(b[bo]);
        acc += v;
    }
    y[i] = T(acc);
}
