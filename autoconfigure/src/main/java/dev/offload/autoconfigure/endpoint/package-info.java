/**
 * Auto-configuration of the {@code streampools} actuator endpoint.
 */
package dev.offload.autoconfigure.endpoint;
