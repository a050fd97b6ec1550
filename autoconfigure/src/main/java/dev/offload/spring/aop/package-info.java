/**
 * Support for {@code @Offload} methods: the advisor, its interceptor and the
 * post-processor that applies it.
 */
@NullMarked
package dev.offload.spring.aop;

import org.jspecify.annotations.NullMarked;
