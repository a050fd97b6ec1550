// Writes data[offset]: with a huge offset, an illegal address that fails the device's context (a sticky error).
extern "C" __global__ void writeOutOfBounds(int* data, long long offset) {
	data[offset] = 42;
}
