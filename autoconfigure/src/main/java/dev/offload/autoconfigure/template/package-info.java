/**
 * Auto-configuration of {@code OffloadTemplate} and the {@code @Offload} annotation
 * support.
 */
@NullMarked
package dev.offload.autoconfigure.template;

import org.jspecify.annotations.NullMarked;
