package dev.offload.architecture;

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

/**
 * The package cycles of a set of class dependencies: the strongly connected components of
 * the package graph that hold more than one package (Tarjan's algorithm), each listed
 * with the class dependencies that close it, so that a failure says what to move. The
 * class dependencies come from {@code jdeps} ({@link #classDependencies}), which reads
 * the constant pool, so the class of an inlined constant counts. Public for the other
 * modules' tests (the benchmarks'), through core's test jar.
 */
public final class PackageCycles {

	private static final Pattern DEPENDENCY = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s");

	private final Map<String, Set<String>> edges = new TreeMap<>();

	private final Map<String, Integer> index = new HashMap<>();

	private final Map<String, Integer> lowLink = new HashMap<>();

	private final Deque<String> stack = new ArrayDeque<>();

	private final Set<String> onStack = new TreeSet<>();

	private final List<Set<String>> components = new ArrayList<>();

	private PackageCycles(Set<String> dependencies) {
		for (String dependency : dependencies) {
			String[] ends = dependency.split(" -> ");
			String from = packageOf(ends[0]);
			String to = packageOf(ends[1]);
			this.edges.computeIfAbsent(to, (key) -> new TreeSet<>());
			if (!from.equals(to)) {
				this.edges.computeIfAbsent(from, (key) -> new TreeSet<>()).add(to);
			}
		}
	}

	/**
	 * Returns the package cycles among class dependencies.
	 * @param dependencies class dependencies, each {@code "origin -> target"} with
	 * qualified class names
	 * @return each cycle's packages and, after them, the class dependencies between them;
	 * empty when the packages form no cycle
	 */
	public static List<String> of(Set<String> dependencies) {
		PackageCycles graph = new PackageCycles(dependencies);
		for (String pkg : graph.edges.keySet()) {
			if (!graph.index.containsKey(pkg)) {
				graph.connect(pkg);
			}
		}
		List<String> cycles = new ArrayList<>();
		for (Set<String> component : graph.components) {
			List<String> closing = dependencies.stream().filter((dependency) -> {
				String[] ends = dependency.split(" -> ");
				String from = packageOf(ends[0]);
				String to = packageOf(ends[1]);
				return !from.equals(to) && component.contains(from) && component.contains(to);
			}).toList();
			cycles.add(component + " through " + closing);
		}
		return cycles;
	}

	/**
	 * Returns the class dependencies among compiled classes, as
	 * {@code jdeps -verbose:class} reads them.
	 * @param classes a folder of class files ({@code target/classes})
	 * @param prefix the package prefix both ends must have ({@code "dev.offload."})
	 * @return each dependency as {@code "origin -> target"}
	 */
	public static Set<String> classDependencies(Path classes, String prefix) {
		if (!Files.isDirectory(classes)) {
			throw new IllegalStateException("No compiled classes in " + classes.toAbsolutePath());
		}
		ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
		StringWriter out = new StringWriter();
		int status = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:class", "-filter:none",
				classes.toString());
		if (status != 0) {
			throw new IllegalStateException("jdeps failed (" + status + "): " + out);
		}
		Set<String> dependencies = new TreeSet<>();
		for (String line : out.toString().split("\\R")) {
			Matcher matcher = DEPENDENCY.matcher(line);
			if (matcher.find() && matcher.group(1).startsWith(prefix) && matcher.group(2).startsWith(prefix)) {
				dependencies.add(matcher.group(1) + " -> " + matcher.group(2));
			}
		}
		return dependencies;
	}

	private void connect(String pkg) {
		// Recursive: core has a few dozen packages.
		this.index.put(pkg, this.index.size());
		this.lowLink.put(pkg, this.index.get(pkg));
		this.stack.push(pkg);
		this.onStack.add(pkg);
		for (String next : this.edges.get(pkg)) {
			if (!this.index.containsKey(next)) {
				connect(next);
				this.lowLink.put(pkg, Math.min(this.lowLink.get(pkg), this.lowLink.get(next)));
			}
			else if (this.onStack.contains(next)) {
				this.lowLink.put(pkg, Math.min(this.lowLink.get(pkg), this.index.get(next)));
			}
		}
		if (this.lowLink.get(pkg).equals(this.index.get(pkg))) {
			Set<String> component = new TreeSet<>();
			String member;
			do {
				member = this.stack.pop();
				this.onStack.remove(member);
				component.add(member);
			}
			while (!member.equals(pkg));
			if (component.size() > 1) {
				this.components.add(component);
			}
		}
	}

	private static String packageOf(String type) {
		return type.substring(0, type.lastIndexOf('.'));
	}

}
