/**
 * Actuator support for Offload: the {@code streampools} endpoint and the {@code offload} health indicator.
 */
package dev.offload.autoconfigure.actuate;
