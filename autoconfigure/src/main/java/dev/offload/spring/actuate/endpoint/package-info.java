/**
 * The {@code streampools} actuator endpoint: a read model of every device's stream pool.
 */
package dev.offload.spring.actuate.endpoint;
