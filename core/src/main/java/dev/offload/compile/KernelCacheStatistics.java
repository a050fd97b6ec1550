package dev.offload.compile;

/**
 * A snapshot of a {@link KernelCache}'s counts since it was created.
 *
 * @param hits module loads served without compiling: from the images packaged at build
 * time, memory or the cache directory
 * @param misses module loads that had to compile
 * @param compilations compilations that produced an image (misses less failed ones)
 * @param compileTimeNanos the time those compilations took, in total
 */
public record KernelCacheStatistics(long hits, long misses, long compilations, long compileTimeNanos) {

}
