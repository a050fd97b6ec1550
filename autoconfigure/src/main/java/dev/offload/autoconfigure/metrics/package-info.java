/**
 * Auto-configuration of Offload's Micrometer meters.
 */
@NullMarked
package dev.offload.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
