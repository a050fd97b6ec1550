/**
 * What the benchmark packages share, so that none of them depends on another's: the
 * command line, latency percentiles, and the scale kernel with its {@link Scaler}.
 */
@NullMarked
package dev.offload.benchmarks.support;

import org.jspecify.annotations.NullMarked;
