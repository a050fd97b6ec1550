/**
 * Portfolio scenario risk: the P&amp;L of every position in every scenario as one matrix
 * product (BLAS {@code dgemm}, cuBLAS on a GPU, EJML on the host emulation), and value at
 * risk and expected shortfall from it.
 */
package dev.offload.sample.risk;
