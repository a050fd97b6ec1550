/**
 * The Micrometer Observation of Offload sessions: its context, convention and the
 * listener that records it.
 */
@NullMarked
package dev.offload.spring.observation;

import org.jspecify.annotations.NullMarked;
