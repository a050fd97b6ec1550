package dev.offload.kernel;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CUDA C source of a {@link ModuleDefinition}, which the CUDA backend compiles with
 * NVRTC for the device it loads the module on.
 *
 * @param name the source's file name, as NVRTC's messages quote it (e.g.
 * {@code "options.cu"})
 * @param text the source text
 * @param includes the headers it may {@code #include}, text by name, in declaration order
 * @param options the NVRTC options added to the architecture (e.g.
 * {@code "--use_fast_math"})
 */
public record CudaSource(String name, String text, Map<String, String> includes, List<String> options) {

	/**
	 * Checks and copies the values.
	 * @param name the source's file name
	 * @param text the source text
	 * @param includes the headers by name
	 * @param options the NVRTC options
	 * @throws IllegalArgumentException if a value is missing or blank
	 */
	public CudaSource {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A CUDA source needs a file name");
		}
		if (text == null || text.isBlank()) {
			throw new IllegalArgumentException("The CUDA source '" + name + "' is empty");
		}
		includes = Collections.unmodifiableMap(new LinkedHashMap<>((includes != null) ? includes : Map.of()));
		options = List.copyOf((options != null) ? options : List.of());
		for (String option : options) {
			if (option.startsWith("--gpu-architecture") || option.startsWith("-arch")) {
				throw new IllegalArgumentException("The options of CUDA source '" + name + "' name an architecture ("
						+ option + "); the backend compiles for the device's own");
			}
		}
	}

}
