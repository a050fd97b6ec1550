package dev.offload.test.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.test.context.SpringBootTestContextBootstrapper;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

/**
 * Bootstraps an {@link OffloadTest}: finds the application's configuration and adds the
 * test's properties.
 */
class OffloadTestContextBootstrapper extends SpringBootTestContextBootstrapper {

	@Override
	protected String @Nullable [] getProperties(Class<?> testClass) {
		return MergedAnnotations.from(testClass, SearchStrategy.INHERITED_ANNOTATIONS)
			.get(OffloadTest.class)
			.getValue("properties", String[].class)
			.orElse(null);
	}

}
