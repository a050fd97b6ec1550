// The empty kernel: launch overhead and the session benchmark.
extern "C" __global__ void empty() {
}
