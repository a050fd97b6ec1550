/**
 * Benchmarks of Offload's stream pool: the hazard benchmark for a GPU and the pieces the
 * JMH benchmarks share.
 */
package dev.offload.benchmarks;
