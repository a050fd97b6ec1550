/**
 * Auto-configuration of the stream pools by device id.
 */
@NullMarked
package dev.offload.autoconfigure.pool;

import org.jspecify.annotations.NullMarked;
