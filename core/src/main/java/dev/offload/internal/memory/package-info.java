/**
 * A device's memory, behind one door, {@link DeviceMemory}: the budget that bounds what
 * sessions and application-owned buffers hold at once and admits, per priority class and
 * tenant, those waiting for it; the cache of freed device blocks, the page-locked staging
 * arena and the memory thread behind them. {@link MemoryTuning} holds its numbers. Not
 * API: anything here may change in any release.
 */
@NullMarked
package dev.offload.internal.memory;

import org.jspecify.annotations.NullMarked;
