package dev.offload.architecture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Core's dependencies as {@code jdeps} reads them from the class files: every class the
 * constant pool names, including the class of a constant that javac inlined (javac keeps
 * a class entry for it, which no instruction uses). ArchUnit follows only the code's
 * references, so {@code HostBackend.NAME.equals(name)} in the root package, compiled to
 * the literal {@code "host"}, passes {@link CoreLayeringTests} and fails here.
 */
class CompiledDependencyTests {

	/** Class to class dependencies between packages: "origin -> target". */
	private static Set<String> dependencies;

	@BeforeAll
	static void runJdeps() {
		dependencies = PackageCycles.classDependencies(Path.of("target", "classes"), "dev.offload.");
		assertThat(dependencies).as("jdeps found core's dependencies").isNotEmpty();
	}

	@Test
	void apiShouldNameNoBackendNotEvenThroughAnInlinedConstant() {
		assertThat(between("dev.offload", "dev.offload.backend.")).isEmpty();
	}

	@Test
	void roomsShouldNameNothingOfTheRoot() {
		assertThat(between("dev.offload.internal.", "dev.offload")).isEmpty();
	}

	@Test
	void packagesShouldFormNoCycle() {
		assertThat(PackageCycles.of(dependencies)).isEmpty();
	}

	@Test
	void completionShouldBeNamedOnlyThroughItsDoorAndItsTuning() {
		Set<String> door = Set.of("Completions", "Completions$SessionEnd", "CompletionTuning", "CompletionFailures");
		List<String> forbidden = new ArrayList<>();
		for (String dependency : dependencies) {
			String[] ends = dependency.split(" -> ");
			if (!ends[0].startsWith("dev.offload.internal.completion.")
					&& in(ends[1], "dev.offload.internal.completion")
					&& !door.contains(ends[1].substring("dev.offload.internal.completion.".length()))) {
				forbidden.add(dependency);
			}
		}
		assertThat(forbidden).isEmpty();
	}

	@Test
	void roomsShouldNameNoOtherRoom() {
		assertThat(between("dev.offload.internal.completion.", "dev.offload.internal.memory.")).isEmpty();
		assertThat(between("dev.offload.internal.memory.", "dev.offload.internal.completion.")).isEmpty();
	}

	@Test
	void roomsShouldNameNoTemplateSpringOrBackend() {
		assertThat(between("dev.offload.internal.", "dev.offload.template.")).isEmpty();
		assertThat(between("dev.offload.internal.", "dev.offload.spring.")).isEmpty();
		assertThat(between("dev.offload.internal.", "dev.offload.autoconfigure.")).isEmpty();
		assertThat(between("dev.offload.internal.", "dev.offload.backend.")).isEmpty();
	}

	@Test
	void lendingRoomShouldNameNothingOfTheRootOrTheSpi() {
		assertThat(between("dev.offload.internal.lending.", "dev.offload")).isEmpty();
		assertThat(between("dev.offload.internal.lending.", "dev.offload.spi.")).isEmpty();
		assertThat(between("dev.offload.internal.lending.", "dev.offload.internal.memory.")).isEmpty();
	}

	/**
	 * Returns the dependencies from classes of one package to another.
	 * @param origin a package's name ("dev.offload" for the root only), or a prefix
	 * ending in a dot for a package and those under it
	 * @param target the same, for the target
	 */
	private static List<String> between(String origin, String target) {
		return dependencies.stream().filter((dependency) -> {
			String[] ends = dependency.split(" -> ");
			return in(ends[0], origin) && in(ends[1], target);
		}).toList();
	}

	private static boolean in(String type, String pkg) {
		if (pkg.endsWith(".")) {
			return type.startsWith(pkg);
		}
		int dot = type.lastIndexOf('.');
		return type.substring(0, dot).equals(pkg);
	}

}
