package dev.offload.backend.cuda;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks tests that need a CUDA device: tagged {@code gpu}, and skipped with the reason
 * (no natives, no device) where CUDA is unavailable, so that a build without a GPU shows
 * them as skipped rather than hiding them.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("gpu")
@ExtendWith(CudaAvailableCondition.class)
public @interface GpuTests {

}
