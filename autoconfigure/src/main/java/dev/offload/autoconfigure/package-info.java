/**
 * Spring Boot auto-configuration of Offload: properties, backend, device registry, per-device stream pool beans,
 * lifecycle and failure analysis.
 */
package dev.offload.autoconfigure;
