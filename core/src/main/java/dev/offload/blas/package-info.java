/**
 * cuBLAS on Offload's sessions: {@link dev.offload.blas.Blas} enqueues matrix and vector
 * operations on a session's stream, on its device buffers, through a cuBLAS handle that
 * lives with the pooled stream and a workspace from the device's memory budget; on the
 * host backend the same calls run on the CPU (EJML), so that applications test them
 * without a GPU. {@link dev.offload.blas.BlasLibrary} configures the library (its path,
 * the workspace, the math mode).
 */
@NullMarked
package dev.offload.blas;

import org.jspecify.annotations.NullMarked;
