/**
 * The seam between Offload's cuBLAS handles ({@code dev.offload.blas}) and the ways of
 * calling C that reach cuBLAS: JNA in core, the foreign function API in
 * {@code offload-backend-ffm}, which a backend offers through
 * {@link dev.offload.spi.BackendStream#libraryBinding(Class)}. Not API: public only so
 * that the FFM backend can implement it; the compatibility check leaves it out.
 */
@NullMarked
package dev.offload.internal.blas;

import org.jspecify.annotations.NullMarked;
