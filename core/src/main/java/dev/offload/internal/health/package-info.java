/**
 * The GPU fault room: a registry's watch of the GPU's own fault reports behind one door,
 * {@link dev.offload.internal.health.GpuFaultWatcher}, and NVML's source of them,
 * {@link dev.offload.internal.health.NvmlGpuFaultSource}, which the CUDA backends open.
 * The Xid catalog and the NVML binding are package-private. Not API: anything here may
 * change in any release.
 */
@NullMarked
package dev.offload.internal.health;

import org.jspecify.annotations.NullMarked;
