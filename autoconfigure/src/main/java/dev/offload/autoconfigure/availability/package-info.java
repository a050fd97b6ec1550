/**
 * Auto-configuration of Offload's part in the availability probes: the readiness probe
 * refuses traffic when a device failed or, if asked, while a pool is saturated.
 */
@NullMarked
package dev.offload.autoconfigure.availability;

import org.jspecify.annotations.NullMarked;
