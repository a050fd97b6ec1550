/**
 * Benchmarks of the CUDA backend on a real GPU, run as plain {@code main}s on the GPU
 * machine.
 */
package dev.offload.benchmarks.cuda;
