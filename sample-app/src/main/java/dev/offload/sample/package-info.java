/**
 * The sample service's application class.
 */
package dev.offload.sample;
