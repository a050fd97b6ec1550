/**
 * Offload's public API: devices, per-device stream pools, sessions, buffers and kernels.
 */
@NullMarked
package dev.offload;

import org.jspecify.annotations.NullMarked;
