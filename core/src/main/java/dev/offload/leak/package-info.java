/**
 * Leak detection: a {@link dev.offload.leak.LeakDetector} warns about sessions left open
 * too long.
 */
package dev.offload.leak;
