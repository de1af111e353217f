#!/bin/sh
# Prints the first Python that has torch, onnx and numpy, for the benchmark scripts: on
# the GPU machine python3 (PyTorch 2.11, CUDA); here Debian's /usr/bin/python3 (PyTorch
# 1.13); VKML_BENCH_PYTHON first. None: says so and exits 77 (meson's skip), 1 when CI=true.
for p in ${VKML_BENCH_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import torch, onnx, numpy' 2> /dev/null; then
        echo "$p"
        exit 0
    fi
done
echo "no Python with torch, onnx and numpy (set VKML_BENCH_PYTHON)" >&2
[ "${CI:-}" = true ] && exit 1
exit 77
