/**
 * The health indicator that reports each device's state and the backend in use, and the
 * readiness state indicator that takes the application out of readiness when a device
 * failed or, if asked, while a pool is saturated.
 */
@NullMarked
package dev.offload.spring.actuate.health;

import org.jspecify.annotations.NullMarked;
