/**
 * The backend SPI: what a device runtime (CUDA, the host emulation) must provide so that
 * pools and sessions can run on it.
 */
package dev.offload.spi;
