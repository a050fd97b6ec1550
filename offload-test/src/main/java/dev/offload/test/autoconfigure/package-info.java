/**
 * Spring Boot test support: {@code @OffloadTest}, {@code @AutoConfigureOffload}, fault
 * properties and the leak check.
 */
package dev.offload.test.autoconfigure;
