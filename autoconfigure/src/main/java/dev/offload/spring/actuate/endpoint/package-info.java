/**
 * The {@code streampools} actuator endpoint: a read model of every device's stream pool.
 */
@NullMarked
package dev.offload.spring.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
