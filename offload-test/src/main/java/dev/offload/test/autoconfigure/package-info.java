/**
 * Spring Boot test support: {@code @OffloadTest}, {@code @AutoConfigureOffload}, fault
 * properties and the leak check.
 */
@NullMarked
package dev.offload.test.autoconfigure;

import org.jspecify.annotations.NullMarked;
