package dev.offload.kernel;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Reads the parameter kinds of the {@code extern "C" __global__} kernels of CUDA C
 * source, so that a module from source declares nothing twice.
 * <p>
 * Pointers (and arrays) map to {@link ParamKind#POINTER}; {@code int}, {@code unsigned},
 * {@code int32_t}, {@code uint32_t} to {@link ParamKind#INT32}; {@code long long},
 * {@code long}, {@code size_t}, {@code int64_t}, {@code uint64_t} and their unsigned
 * forms to {@link ParamKind#INT64} (64-bit Linux); {@code float} to
 * {@link ParamKind#FLOAT32}; {@code double} to {@link ParamKind#FLOAT64}. Qualifiers
 * ({@code const}, {@code volatile}, {@code __restrict__}) are ignored. Kernels with C++
 * linkage have mangled names and are not read; any other parameter type is an error
 * naming the kernel and its line.
 */
final class CudaSignatures {

	private static final Pattern COMMENT = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);

	private static final Pattern TOKEN = Pattern.compile("extern\\s+\"C\"\\s*\\{|extern\\s+\"C\"|\\{|\\}|;|__global__");

	private static final Pattern KERNEL = Pattern
		.compile("\\G\\s*(?:__launch_bounds__\\s*\\([^)]*\\)\\s*)?void\\s+(?:__launch_bounds__\\s*\\([^)]*\\)\\s*)?"
				+ "([A-Za-z_]\\w*)\\s*\\(([^)]*)\\)");

	private static final Pattern QUALIFIERS = Pattern
		.compile("\\b(const|volatile|__restrict__|__restrict|restrict|__grid_constant__)\\b");

	private static final Map<String, ParamKind> TYPES = types();

	private CudaSignatures() {
	}

	/**
	 * Reads the kernels of {@code source}.
	 * @param sourceName the source's name, for messages
	 * @param source CUDA C source text
	 * @return each {@code extern "C"} kernel's parameters, by name in source order
	 * @throws IllegalArgumentException if a kernel has a parameter no {@link ParamKind}
	 * can pass, naming the kernel, the parameter and its line
	 */
	static Map<String, List<ParamKind>> parse(String sourceName, String source) {
		String text = withoutComments(source);
		Map<String, List<ParamKind>> kernels = new LinkedHashMap<>();
		// Each open brace remembers whether it opened an extern "C" block.
		List<Boolean> braces = new ArrayList<>();
		boolean externPrefix = false;
		Matcher token = TOKEN.matcher(text);
		while (token.find()) {
			String found = token.group();
			if (found.startsWith("extern") && found.endsWith("{")) {
				braces.add(Boolean.TRUE);
			}
			else if (found.startsWith("extern")) {
				externPrefix = true;
			}
			else if (found.equals("{")) {
				braces.add(Boolean.FALSE);
				externPrefix = false;
			}
			else if (found.equals("}")) {
				if (!braces.isEmpty()) {
					braces.remove(braces.size() - 1);
				}
				externPrefix = false;
			}
			else if (found.equals(";")) {
				externPrefix = false;
			}
			else {
				boolean externC = externPrefix || braces.contains(Boolean.TRUE);
				externPrefix = false;
				Matcher kernel = KERNEL.matcher(text);
				if (externC && kernel.find(token.end())) {
					String name = kernel.group(1);
					kernels.put(name, parameters(sourceName, line(text, token.start()), name, kernel.group(2)));
				}
			}
		}
		return kernels;
	}

	private static @Nullable List<ParamKind> parameters(String sourceName, int line, String kernel, String list) {
		List<ParamKind> kinds = new ArrayList<>();
		String trimmed = list.trim();
		if (trimmed.isEmpty() || trimmed.equals("void")) {
			return List.of();
		}
		String[] parameters = trimmed.split(",");
		for (int i = 0; i < parameters.length; i++) {
			ParamKind kind = kind(parameters[i]);
			if (kind == null) {
				throw new IllegalArgumentException("Kernel '" + kernel + "' (" + sourceName + ":" + line
						+ ") has parameter " + i + " '" + parameters[i].trim().replaceAll("\\s+", " ")
						+ "', which no ParamKind can pass; use a pointer, int, unsigned, long long, size_t, "
						+ "float or double");
			}
			kinds.add(kind);
		}
		return List.copyOf(kinds);
	}

	/**
	 * Maps one parameter declaration to its kind.
	 * @param declaration e.g. {@code "const float* __restrict__ x"}
	 * @return the kind, or {@code null} if none can pass it
	 */
	static @Nullable ParamKind kind(String declaration) {
		String text = QUALIFIERS.matcher(declaration).replaceAll(" ").trim();
		if (text.contains("&") || text.contains("<") || text.contains("(")) {
			return null;
		}
		if (text.contains("*") || text.contains("[")) {
			return ParamKind.POINTER;
		}
		List<String> words = new ArrayList<>(List.of(text.split("\\s+")));
		if (words.size() > 1 && !TYPES.containsKey(words.get(words.size() - 1))
				&& !isTypeWord(words.get(words.size() - 1))) {
			// The last word is the parameter's name.
			words.remove(words.size() - 1);
		}
		return TYPES.get(String.join(" ", words));
	}

	private static boolean isTypeWord(String word) {
		return switch (word) {
			case "int", "long", "unsigned", "signed", "float", "double" -> true;
			default -> false;
		};
	}

	private static Map<String, ParamKind> types() {
		Map<String, ParamKind> types = new LinkedHashMap<>();
		for (String int32 : List.of("int", "signed", "signed int", "unsigned", "unsigned int", "int32_t", "uint32_t")) {
			types.put(int32, ParamKind.INT32);
		}
		for (String int64 : List.of("long long", "long long int", "signed long long", "signed long long int",
				"unsigned long long", "unsigned long long int", "long", "long int", "signed long", "unsigned long",
				"unsigned long int", "size_t", "ssize_t", "ptrdiff_t", "int64_t", "uint64_t")) {
			types.put(int64, ParamKind.INT64);
		}
		types.put("float", ParamKind.FLOAT32);
		types.put("double", ParamKind.FLOAT64);
		return Map.copyOf(types);
	}

	private static String withoutComments(String source) {
		// Comments become blanks of the same length, newlines kept, so offsets give
		// lines.
		Matcher comment = COMMENT.matcher(source);
		StringBuilder text = new StringBuilder(source.length());
		int last = 0;
		while (comment.find()) {
			text.append(source, last, comment.start());
			for (int i = comment.start(); i < comment.end(); i++) {
				text.append((source.charAt(i) == '\n') ? '\n' : ' ');
			}
			last = comment.end();
		}
		return text.append(source, last, source.length()).toString();
	}

	private static int line(String text, int offset) {
		int line = 1;
		for (int i = 0; i < offset; i++) {
			if (text.charAt(i) == '\n') {
				line++;
			}
		}
		return line;
	}

}
