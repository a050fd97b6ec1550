// Included by the source the GPU tests compile, to check that includes reach NVRTC.
__device__ inline float axpy(float a, float x, float y)
{
	return a * x + y;
}
