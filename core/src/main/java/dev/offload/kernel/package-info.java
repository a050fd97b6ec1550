/**
 * What kernel code is written against: module definitions, kernel references, launch
 * geometry, parameter kinds and the host emulation's kernel interface.
 */
@NullMarked
package dev.offload.kernel;

import org.jspecify.annotations.NullMarked;
