/**
 * Auto-configuration of session leak detection.
 */
package dev.offload.autoconfigure.leak;
