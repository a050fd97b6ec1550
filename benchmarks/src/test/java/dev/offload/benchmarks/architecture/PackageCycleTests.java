package dev.offload.benchmarks.architecture;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark packages depend on each other in one direction only, as {@code jdeps}
 * reads the class files (the class of an inlined constant included): what two packages
 * share lives in {@code dev.offload.benchmarks.support}.
 */
class PackageCycleTests {

	private static final Pattern DEPENDENCY = Pattern
		.compile("^\\s+(dev\\.offload\\.benchmarks\\S*)\\s+->\\s+(dev\\.offload\\.benchmarks\\S*)\\s");

	@Test
	void packagesShouldFormNoCycle() {
		Map<String, Set<String>> classes = classDependencies();
		Map<String, Set<String>> packages = new TreeMap<>();
		classes.forEach((origin, targets) -> targets.stream()
			.filter((target) -> !packageOf(target).equals(packageOf(origin)))
			.forEach((target) -> packages.computeIfAbsent(packageOf(origin), (key) -> new TreeSet<>())
				.add(packageOf(target))));
		assertThat(packages).as("jdeps found dependencies between the benchmark packages").isNotEmpty();
		List<String> cycles = new ArrayList<>();
		for (Set<String> component : new StronglyConnected(packages).components()) {
			if (component.size() > 1) {
				cycles.add(component + " through " + crossing(classes, component));
			}
		}
		assertThat(cycles).as("package cycles, with the class dependencies that make them").isEmpty();
	}

	/** Class to class dependencies within the benchmarks, by origin. */
	private static Map<String, Set<String>> classDependencies() {
		Path classes = Path.of("target", "classes");
		assertThat(Files.isDirectory(classes.resolve("dev/offload/benchmarks"))).as("the compiled benchmarks").isTrue();
		ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
		StringWriter out = new StringWriter();
		int status = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:class", "-filter:none",
				classes.toString());
		assertThat(status).as(out.toString()).isZero();
		Map<String, Set<String>> dependencies = new TreeMap<>();
		for (String line : out.toString().split("\\R")) {
			Matcher matcher = DEPENDENCY.matcher(line);
			if (matcher.find()) {
				dependencies.computeIfAbsent(matcher.group(1), (key) -> new TreeSet<>()).add(matcher.group(2));
			}
		}
		return dependencies;
	}

	/** The class dependencies between different packages of one component. */
	private static List<String> crossing(Map<String, Set<String>> classes, Set<String> component) {
		List<String> crossing = new ArrayList<>();
		classes.forEach((origin, targets) -> targets.stream()
			.filter((target) -> component.contains(packageOf(origin)) && component.contains(packageOf(target))
					&& !packageOf(origin).equals(packageOf(target)))
			.forEach((target) -> crossing.add(origin + " -> " + target)));
		return crossing;
	}

	private static String packageOf(String type) {
		return type.substring(0, type.lastIndexOf('.'));
	}

	/**
	 * Tarjan's strongly connected components of a directed graph: a component of more
	 * than one node is a cycle.
	 */
	private static final class StronglyConnected {

		private final Map<String, Set<String>> edges;

		private final Map<String, Integer> index = new HashMap<>();

		private final Map<String, Integer> lowLink = new HashMap<>();

		private final Deque<String> stack = new ArrayDeque<>();

		private final List<Set<String>> components = new ArrayList<>();

		StronglyConnected(Map<String, Set<String>> edges) {
			this.edges = edges;
		}

		List<Set<String>> components() {
			for (String node : this.edges.keySet()) {
				if (!this.index.containsKey(node)) {
					visit(node);
				}
			}
			return this.components;
		}

		private void visit(String node) {
			this.index.put(node, this.index.size());
			this.lowLink.put(node, this.index.get(node));
			this.stack.push(node);
			for (String next : this.edges.getOrDefault(node, Set.of())) {
				if (!this.index.containsKey(next)) {
					visit(next);
					this.lowLink.put(node, Math.min(this.lowLink.get(node), this.lowLink.get(next)));
				}
				else if (this.stack.contains(next)) {
					this.lowLink.put(node, Math.min(this.lowLink.get(node), this.index.get(next)));
				}
			}
			if (this.lowLink.get(node).equals(this.index.get(node))) {
				Set<String> component = new TreeSet<>();
				String member;
				do {
					member = this.stack.pop();
					component.add(member);
				}
				while (!member.equals(node));
				this.components.add(component);
			}
		}

	}

}
