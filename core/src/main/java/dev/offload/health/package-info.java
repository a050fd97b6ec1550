/**
 * What the GPU reports of its own health: {@link dev.offload.health.GpuFault}, an Xid as
 * Offload classed it, which a device, its listener and the health details carry.
 */
@NullMarked
package dev.offload.health;

import org.jspecify.annotations.NullMarked;
