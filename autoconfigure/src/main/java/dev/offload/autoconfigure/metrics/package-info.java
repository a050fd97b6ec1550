/**
 * Micrometer support for Offload: stream pool meters, session timers and an observation around each session.
 */
package dev.offload.autoconfigure.metrics;
