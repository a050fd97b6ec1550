/**
 * The pools Offload's stream pool is measured against: LLVM's array stack under a lock,
 * and Commons Pool2.
 */
package dev.offload.benchmarks.baseline;
