#!/usr/bin/env bash
# Regenerates the test kernels' PTX (and one cubin) from their CUDA C sources. Needs nvcc (CUDA 12 or later).
# Usage (from the project's root): scripts/gpu/build-ptx.sh
# The outputs are committed for the tests that load PTX and cubins; modules from CUDA C source (CudaSourceGpuTests,
# the sample app) compile at run time with NVRTC and need nothing from here.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=core/src/test/resources/kernels
for source in "$dir"/*.cu; do
	name=$(basename "$source" .cu)
	nvcc -ptx -arch=compute_90 -o "$dir/$name.ptx" "$source"
	echo "wrote $dir/$name.ptx"
done
# A cubin of SAXPY for the test that loads binary images (kernels found by their declared signatures).
nvcc -cubin -arch=sm_90 -o "$dir/saxpy.cubin" "$dir/saxpy.cu"
echo "wrote $dir/saxpy.cubin"
# The session benchmark launches the empty kernel, the fluent-call benchmark the scale kernel.
cp "$dir/empty.ptx" "$dir/scale.ptx" benchmarks/src/main/resources/dev/offload/benchmarks/cuda/
echo "copied empty.ptx and scale.ptx to benchmarks/src/main/resources/dev/offload/benchmarks/cuda"
# The small-work benchmark's Black-Scholes kernel.
nvcc -ptx -arch=compute_90 -o benchmarks/src/main/resources/kernels/black_scholes.ptx benchmarks/src/main/cuda/black_scholes.cu
echo "wrote benchmarks/src/main/resources/kernels/black_scholes.ptx"
