/**
 * The host backend: devices emulated on the CPU with real stream semantics, for machines
 * without a GPU.
 */
package dev.offload.backend.host;
