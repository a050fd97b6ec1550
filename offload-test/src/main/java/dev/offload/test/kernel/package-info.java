/**
 * Ready kernels with host implementations for tests: a gate, a slow kernel, failing
 * kernels.
 */
@NullMarked
package dev.offload.test.kernel;

import org.jspecify.annotations.NullMarked;
