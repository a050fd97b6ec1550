package dev.offload.sample.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the repository's {@code ops/} folder from the test's working directory (the
 * module or the repository root).
 */
final class OpsFiles {

	private OpsFiles() {
	}

	/**
	 * A file under {@code ops/}.
	 * @param relative the path below {@code ops/}, such as
	 * {@code grafana/offload-dashboard.json}
	 * @return the file
	 */
	static Path path(String relative) {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			Path ops = dir.resolve("ops");
			if (Files.isDirectory(ops)) {
				Path file = ops.resolve(relative);
				if (!Files.isRegularFile(file)) {
					throw new IllegalStateException("No file " + file);
				}
				return file;
			}
		}
		throw new IllegalStateException("No ops folder above " + Path.of("").toAbsolutePath());
	}

	static String read(String relative) {
		try {
			return Files.readString(path(relative), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
