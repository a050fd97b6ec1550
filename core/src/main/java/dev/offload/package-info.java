/**
 * Offload's public API: devices, per-device stream pools, sessions, buffers and kernels.
 */
package dev.offload;
