/**
 * Failure analyses for Offload's configuration errors: each names the setting, its value,
 * where it came from and the fix.
 */
@NullMarked
package dev.offload.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
