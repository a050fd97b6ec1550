/**
 * Startup cost of the starter: the same small web application started with and without
 * Offload on its classpath.
 */
package dev.offload.benchmarks.startup;
