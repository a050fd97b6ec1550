/**
 * Picking one device's stream pool at an injection point.
 */
@NullMarked
package dev.offload.spring.pool;

import org.jspecify.annotations.NullMarked;
