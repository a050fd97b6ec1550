/**
 * Auto-configuration of {@code OffloadTemplate} and the {@code @Offload} annotation
 * support.
 */
package dev.offload.autoconfigure.template;
