// out[i] = a * in[i] for i < n.
extern "C" __global__ void scale(int n, float a, const float* in, float* out) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = a * in[i];
	}
}
