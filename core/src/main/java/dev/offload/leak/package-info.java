/**
 * Leak detection: a {@link dev.offload.leak.LeakDetector} warns about sessions left open
 * too long.
 */
@NullMarked
package dev.offload.leak;

import org.jspecify.annotations.NullMarked;
