/**
 * Auto-configuration of the {@code streampools} actuator endpoint.
 */
@NullMarked
package dev.offload.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
