package dev.offload;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A stand-in for a native library (cuBLAS, NVML), compiled from C source on the test's
 * classpath with {@code cc}, so that a binding's marshalling is checked without a GPU:
 * each of its functions appends its arguments as a line to {@code <library>.log}, which
 * {@link #calls()} reads, and returns the status that {@link #fail} set for it, or 0.
 * Tests skip where no C compiler is installed ({@link #compilerMissing()}).
 */
public final class FakeLibrary {

	/**
	 * The recording and the statuses every fake shares, included as
	 * {@code "fake-library.h"}.
	 */
	private static final String HEADER = "/dev/offload/fake-library.h";

	private final Path library;

	private FakeLibrary(Path library) {
		this.library = library;
	}

	/**
	 * Says why no fake can be compiled here.
	 * @return the reason, or {@code null} when {@code cc} works
	 */
	public static @Nullable String compilerMissing() {
		try {
			Process process = new ProcessBuilder("cc", "--version").redirectErrorStream(true).start();
			process.getInputStream().transferTo(OutputStream.nullOutputStream());
			if (process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0) {
				return null;
			}
			return "cc --version failed";
		}
		catch (IOException ex) {
			return "no C compiler (cc) to build the fake library: " + ex.getMessage();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
	}

	/**
	 * Compiles a fake.
	 * @param source the C source's classpath resource, e.g.
	 * {@code /dev/offload/blas/fake-cublas.c}
	 * @param directory where the library goes
	 * @param fileName the library's file name, e.g. {@code libcublas.so.13}
	 * @return the fake
	 */
	public static FakeLibrary compile(String source, Path directory, String fileName) {
		try {
			copy(HEADER, directory.resolve("fake-library.h"));
			Path c = directory.resolve(fileName + ".c");
			copy(source, c);
			Path library = directory.resolve(fileName);
			Process process = new ProcessBuilder("cc", "-shared", "-fPIC", "-O0", "-o", library.toString(),
					c.toString())
				.redirectErrorStream(true)
				.start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("cc failed on " + source + ":\n" + output);
			}
			return new FakeLibrary(library.toAbsolutePath());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void copy(String resource, Path file) throws IOException {
		try (InputStream in = Objects.requireNonNull(FakeLibrary.class.getResourceAsStream(resource), resource)) {
			Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
		}
	}

	/**
	 * Returns the library's path, to load it by.
	 * @return the absolute path
	 */
	public Path path() {
		return this.library;
	}

	/**
	 * Returns the calls since the last {@link #clear()}, one line each:
	 * {@code function(name=value,...)}.
	 * @return the calls, oldest first
	 */
	public List<String> calls() {
		Path log = log();
		try {
			return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Forgets the calls so far and every failure set.
	 */
	public void clear() {
		try {
			Files.deleteIfExists(log());
			Files.deleteIfExists(failures());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Makes a function return a status from its next call on, until {@link #clear()}.
	 * @param function the function's name
	 * @param status what it returns
	 */
	public void fail(String function, int status) {
		try {
			List<String> lines = new ArrayList<>(
					Files.exists(failures()) ? Files.readAllLines(failures(), StandardCharsets.UTF_8) : List.of());
			lines.add(function + " " + status);
			Files.write(failures(), lines, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private Path log() {
		return this.library.resolveSibling(this.library.getFileName() + ".log");
	}

	private Path failures() {
		return this.library.resolveSibling(this.library.getFileName() + ".fail");
	}

}
