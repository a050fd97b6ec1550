/**
 * The Micrometer Observation of Offload sessions: its context, convention and the
 * listener that records it.
 */
package dev.offload.spring.observation;
