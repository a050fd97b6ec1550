/**
 * Auto-configuration of Offload's Micrometer meters.
 */
package dev.offload.autoconfigure.metrics;
