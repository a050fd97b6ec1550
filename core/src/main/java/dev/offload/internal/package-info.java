/**
 * Internal helpers that several of Offload's packages share: public only so that those
 * packages can reach them. Not API: anything here may change or go in any release, and
 * the compatibility check leaves this package out.
 */
@NullMarked
package dev.offload.internal;

import org.jspecify.annotations.NullMarked;
