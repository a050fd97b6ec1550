/**
 * Micrometer meter binders for stream pools and sessions.
 */
package dev.offload.spring.metrics;
