package dev.offload.internal.memory;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The size classes of device buffers and page-locked blocks.
 */
class SizeClassesTests {

	private static final long MIB = 1024 * 1024;

	@Test
	void sizeClassWhenAnySizeShouldHoldItAndWasteLessThanAQuarter() {
		long previous = 0;
		int previousIndex = -1;
		for (long bytes = 1; bytes < 64 * MIB; bytes += 1 + bytes / 97) {
			long size = SizeClasses.sizeClass(bytes);
			assertThat(size).isGreaterThanOrEqualTo(bytes);
			if (bytes > SizeClasses.MIN_BYTES) {
				assertThat(size - bytes).isLessThan(bytes / 4);
			}
			int index = SizeClasses.index(size);
			assertThat(index).isBetween(0, SizeClasses.COUNT - 1);
			if (size != previous) {
				assertThat(index).isGreaterThan(previousIndex);
			}
			assertThat(SizeClasses.sizeClass(size)).isEqualTo(size);
			previous = size;
			previousIndex = index;
		}
	}

}
