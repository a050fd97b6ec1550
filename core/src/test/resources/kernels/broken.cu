// A kernel that does not compile: the GPU tests check NVRTC's log names this file and line 6.
extern "C" __global__ void broken(int n, const float* x, float* y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = undefined_function(x[i]);
	}
}
