/**
 * Spring Boot auto-configuration of Offload: properties, backend, device registry,
 * per-device stream pool beans, lifecycle; each feature has its own auto-configuration in
 * a sub-package.
 */
@NullMarked
package dev.offload.autoconfigure;

import org.jspecify.annotations.NullMarked;
