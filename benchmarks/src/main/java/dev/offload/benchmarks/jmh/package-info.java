/**
 * JMH benchmarks of the stream pool's overhead on the CPU, with a backend whose streams
 * cost nothing.
 */
package dev.offload.benchmarks.jmh;
