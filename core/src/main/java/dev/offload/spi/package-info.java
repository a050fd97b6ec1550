/**
 * The backend SPI: what a device runtime (CUDA, the host emulation) must provide so that
 * pools and sessions can run on it.
 */
@NullMarked
package dev.offload.spi;

import org.jspecify.annotations.NullMarked;
