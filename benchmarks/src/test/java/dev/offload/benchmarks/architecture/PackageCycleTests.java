package dev.offload.benchmarks.architecture;

import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.offload.architecture.PackageCycles;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark packages depend on each other in one direction only, as {@code jdeps}
 * reads the class files (the class of an inlined constant included): what two packages
 * share lives in {@code dev.offload.benchmarks.support}.
 */
class PackageCycleTests {

	@Test
	void packagesShouldFormNoCycle() {
		Set<String> dependencies = PackageCycles.classDependencies(Path.of("target", "classes"),
				"dev.offload.benchmarks.");
		assertThat(dependencies).as("jdeps found the benchmarks' dependencies").isNotEmpty();
		assertThat(PackageCycles.of(dependencies)).as("package cycles, with the class dependencies that make them")
			.isEmpty();
	}

}
