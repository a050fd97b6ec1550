// Kernels that keep a stream busy, timed by %globaltimer (nanoseconds), the stream-sharing hazard test.

__device__ __forceinline__ unsigned long long globalTimer() {
	unsigned long long nanos;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(nanos));
	return nanos;
}

// Spins until another stream writes a non-zero int to *release, or maxNanos pass. Thread 0 of block 0 writes the
// outcome: 1 when released, 2 when it timed out. Launch it with one thread.
extern "C" __global__ void spinUntilReleased(const volatile int* release, int* outcome, unsigned long long maxNanos) {
	unsigned long long start = globalTimer();
	int result = 2;
	while (globalTimer() - start < maxNanos) {
		if (*release != 0) {
			result = 1;
			break;
		}
		__nanosleep(1000);
	}
	if (threadIdx.x == 0 && blockIdx.x == 0) {
		*outcome = result;
	}
}

// Spins for nanos nanoseconds.
extern "C" __global__ void spinFor(unsigned long long nanos) {
	unsigned long long start = globalTimer();
	while (globalTimer() - start < nanos) {
		__nanosleep(1000);
	}
}
