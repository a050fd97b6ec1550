/**
 * Spring AOP support for {@link dev.offload.template.Offload @Offload}: an advising bean post-processor that proxies
 * annotated beans with {@link dev.offload.autoconfigure.aop.OffloadMethodInterceptor}.
 */
package dev.offload.autoconfigure.aop;
