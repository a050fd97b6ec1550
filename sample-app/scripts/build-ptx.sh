#!/usr/bin/env bash
# Regenerates the sample app's PTX from its CUDA source (needs nvcc; PTX for compute capability 9.0, which the
# driver JIT-compiles for the GPU it runs on).
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc -ptx -arch=compute_90 -O3 src/main/cuda/options.cu -o src/main/resources/kernels/options.ptx
echo "wrote src/main/resources/kernels/options.ptx"
