/**
 * Support for {@code @Offload} methods: the advisor, its interceptor and the
 * post-processor that applies it.
 */
package dev.offload.spring.aop;
