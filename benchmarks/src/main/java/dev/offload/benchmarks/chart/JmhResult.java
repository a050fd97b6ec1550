package dev.offload.benchmarks.chart;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * One row of a JMH result file ({@code -rf json}): a benchmark method, its parameters and
 * threads, and its score.
 *
 * @param method the benchmark method's simple name, e.g. {@code offloadPool}
 * @param backend the {@code backend} parameter, or {@code ""}
 * @param threads the number of threads
 * @param mode the JMH mode, e.g. {@code thrpt}
 * @param score the primary score
 * @param scoreError the half-width of the score's 99.9 % confidence interval ({@code NaN}
 * when unknown)
 * @param unit the score's unit, e.g. {@code ops/us}
 */
record JmhResult(String method, String backend, int threads, String mode, double score, double scoreError,
		String unit) {

	/**
	 * Reads a JMH JSON result file.
	 * @param file the file
	 * @return its rows, in order
	 * @throws IOException if it cannot be read
	 */
	static List<JmhResult> read(Path file) throws IOException {
		try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
			List<JmhResult> results = new ArrayList<>();
			for (JsonElement element : JsonParser.parseReader(reader).getAsJsonArray()) {
				results.add(of(element.getAsJsonObject()));
			}
			return results;
		}
	}

	private static JmhResult of(JsonObject row) {
		String benchmark = row.get("benchmark").getAsString();
		String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
		JsonObject params = row.has("params") ? row.getAsJsonObject("params") : new JsonObject();
		String backend = params.has("backend") ? params.get("backend").getAsString() : "";
		JsonObject metric = row.getAsJsonObject("primaryMetric");
		JsonElement error = metric.get("scoreError");
		double scoreError = (error != null && error.isJsonPrimitive() && error.getAsJsonPrimitive().isNumber())
				? error.getAsDouble() : Double.NaN;
		return new JmhResult(method, backend, row.get("threads").getAsInt(), row.get("mode").getAsString(),
				metric.get("score").getAsDouble(), scoreError, metric.get("scoreUnit").getAsString());
	}

}
