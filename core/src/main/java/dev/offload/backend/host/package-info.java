/**
 * The host backend: devices emulated on the CPU with real stream semantics, for machines
 * without a GPU.
 */
@NullMarked
package dev.offload.backend.host;

import org.jspecify.annotations.NullMarked;
