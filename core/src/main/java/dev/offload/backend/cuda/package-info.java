/**
 * The CUDA backend: devices, streams, events, memory and modules through JCuda's driver
 * API, one primary context per device, every driver call made through
 * {@link dev.offload.backend.cuda.CudaCalls one class} (so that JCuda's exception mode
 * changes nothing) and every {@code CUresult} checked in
 * {@link dev.offload.backend.cuda.CudaErrors one place}.
 */
@NullMarked
package dev.offload.backend.cuda;

import org.jspecify.annotations.NullMarked;
