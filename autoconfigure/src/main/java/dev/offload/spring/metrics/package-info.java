/**
 * Micrometer meter binders for stream pools and sessions.
 */
@NullMarked
package dev.offload.spring.metrics;

import org.jspecify.annotations.NullMarked;
