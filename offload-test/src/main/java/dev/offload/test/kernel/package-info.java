/**
 * Ready kernels with host implementations for tests: a gate, a slow kernel, failing
 * kernels.
 */
package dev.offload.test.kernel;
