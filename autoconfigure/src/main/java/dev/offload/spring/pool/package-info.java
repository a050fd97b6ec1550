/**
 * Picking one device's stream pool at an injection point.
 */
package dev.offload.spring.pool;
