/**
 * Compiling CUDA C source to the images the CUDA backend loads: the
 * {@link dev.offload.compile.KernelCache cache} that compiles with NVRTC only when no
 * packaged, in-memory or stored image fits, the build-time
 * {@link dev.offload.compile.KernelPrecompiler precompiler}, and their exceptions.
 */
@NullMarked
package dev.offload.compile;

import org.jspecify.annotations.NullMarked;
