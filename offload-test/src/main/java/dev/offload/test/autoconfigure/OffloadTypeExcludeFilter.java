package dev.offload.test.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;

/**
 * Leaves every scanned component out of an {@link OffloadTest}: the slice holds Offload's
 * beans and what the test imports.
 */
final class OffloadTypeExcludeFilter extends TypeExcludeFilter {

	OffloadTypeExcludeFilter(Class<?> testClass) {
	}

	@Override
	public boolean match(MetadataReader metadataReader, MetadataReaderFactory metadataReaderFactory) {
		return true;
	}

	// The test context cache compares filters: all instances behave alike.
	@Override
	public boolean equals(@Nullable Object obj) {
		return obj != null && obj.getClass() == getClass();
	}

	@Override
	public int hashCode() {
		return getClass().hashCode();
	}

}
