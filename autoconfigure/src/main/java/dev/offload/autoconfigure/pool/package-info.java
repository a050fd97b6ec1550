/**
 * Auto-configuration of the stream pools by device id.
 */
package dev.offload.autoconfigure.pool;
