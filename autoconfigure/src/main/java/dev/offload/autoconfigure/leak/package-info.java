/**
 * Auto-configuration of session leak detection.
 */
@NullMarked
package dev.offload.autoconfigure.leak;

import org.jspecify.annotations.NullMarked;
