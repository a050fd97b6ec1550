/**
 * The CUDA backend through Java's foreign function and memory API (Java 22+):
 * {@code libcuda.so.1} loaded by soname, every entry point resolved once through
 * {@code cuGetProcAddress} (so one jar serves CUDA 12 and 13 drivers), every driver call
 * made through {@link dev.offload.backend.ffm.Cu one class} and every {@code CUresult}
 * checked in {@link dev.offload.backend.ffm.CuErrors one place}, as the JCuda binding
 * ({@code dev.offload.backend.cuda}) does. Launches allocate no native memory: each
 * stream keeps its kernel parameter storage.
 */
@NullMarked
package dev.offload.backend.ffm;

import org.jspecify.annotations.NullMarked;
