/**
 * Option pricing on the device: the kernels, the services that run them, and the request
 * and result types.
 */
package dev.offload.sample.pricing;
