/**
 * Auto-configuration of the Micrometer Observation of Offload sessions.
 */
@NullMarked
package dev.offload.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
