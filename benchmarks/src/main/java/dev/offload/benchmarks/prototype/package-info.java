/**
 * A prototype of the stream pool's proposed fast path, measured beside the real pool; not
 * for use outside the benchmarks.
 */
package dev.offload.benchmarks.prototype;
