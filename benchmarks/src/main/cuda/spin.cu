// The spin kernel of the hazard benchmark (HazardBenchmark): one thread busy-waits on the GPU's global
// nanosecond timer for the given time, so a "task" costs a known duration on the device and nothing else.
// Regenerate benchmarks/src/main/resources/kernels/spin.ptx from the benchmarks folder with:
//   nvcc -ptx -arch=compute_90 -o src/main/resources/kernels/spin.ptx src/main/cuda/spin.cu

extern "C" __global__ void spin(long long nanos)
{
	unsigned long long start;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
	unsigned long long now = start;
	while (now - start < (unsigned long long) nanos) {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
	}
}
