package dev.offload.backend.cuda;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.offload.BackendException;
import jcuda.CudaException;
import jcuda.driver.CUresult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CudaCalls}; they need no GPU. A driver call is simulated the way
 * JCuda's {@code JCudaDriver} ends each of its functions (its private
 * {@code checkResult}): with exceptions enabled, a result other than {@code CUDA_SUCCESS}
 * is thrown as {@code new CudaException(CUresult.stringFor(result))}, otherwise returned.
 */
class CudaCallsTests {

	private static final int DEVICE = 2;

	/** A code that JCuda's CUresult does not name (a newer driver's error). */
	private static final int UNNAMED_CODE = 12345;

	@ParameterizedTest(name = "{0}")
	@MethodSource("failureCodes")
	void resultOfWhenJCudaThrewACodeShouldReturnThatCode(String name, int code) {
		assertThat(CudaCalls.resultOf(new CudaException(CUresult.stringFor(code)))).isEqualTo(code);
	}

	@Test
	void resultOfWhenMessageHasTextAfterTheNameShouldReturnTheNamedCode() {
		assertThat(CudaCalls.resultOf(new CudaException("CUDA_ERROR_NOT_READY: device not ready")))
			.isEqualTo(CUresult.CUDA_ERROR_NOT_READY);
	}

	@Test
	void resultOfWhenMessageNamesNoFailureShouldReturnUnknownError() {
		assertThat(List.of(new CudaException("Could not create the launch parameters"), new CudaException(null),
				new CudaException("CUDA_SUCCESS"), new CudaException("INVALID CUresult: many")))
			.allSatisfy((ex) -> assertThat(CudaCalls.resultOf(ex)).as(String.valueOf(ex.getMessage()))
				.isEqualTo(CUresult.CUDA_ERROR_UNKNOWN));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("failureCodes")
	void checkWhenTheDriverThrowsShouldFailAsWhenItReturnsTheCode(String name, int code) {
		Outcome returned = outcome(() -> {
			CudaErrors.check("cuStreamSynchronize", CudaCalls.call(driverCall(false, code)), DEVICE);
			return true;
		});
		Outcome thrown = outcome(() -> {
			CudaErrors.check("cuStreamSynchronize", CudaCalls.call(driverCall(true, code)), DEVICE);
			return true;
		});
		assertThat(returned.errorName()).isEqualTo(CudaErrors.errorName(code));
		assertThat(returned.sticky()).isEqualTo(CudaErrors.isSticky(code));
		assertThat(thrown).isEqualTo(returned);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("allCodes")
	void isDoneWhenTheDriverThrowsShouldAnswerAsWhenItReturnsTheCode(String name, int code) {
		Outcome returned = outcome(
				() -> CudaErrors.isDone("cuStreamQuery", CudaCalls.call(CudaCallsTests::query, code), DEVICE));
		Outcome thrown = outcome(
				() -> CudaErrors.isDone("cuStreamQuery", CudaCalls.call(CudaCallsTests::queryThrowing, code), DEVICE));
		assertThat(thrown).isEqualTo(returned);
	}

	@Test
	void isDoneWhenNotReadyIsThrownShouldBeFalseAndNotAFailure() {
		assertThat(CudaErrors.isDone("cuStreamQuery", CudaCalls.call(driverCall(true, CUresult.CUDA_ERROR_NOT_READY)),
				DEVICE))
			.isFalse();
	}

	@Test
	void checkWhenIllegalAddressIsThrownShouldBeAStickyBackendException() {
		Outcome thrown = outcome(() -> {
			CudaErrors.check("cuStreamSynchronize",
					CudaCalls.call(driverCall(true, CUresult.CUDA_ERROR_ILLEGAL_ADDRESS)), DEVICE);
			return true;
		});
		assertThat(thrown.call()).isEqualTo("cuStreamSynchronize");
		assertThat(thrown.errorName()).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
		assertThat(thrown.deviceId()).isEqualTo(DEVICE);
		assertThat(thrown.sticky()).isTrue();
	}

	@Test
	void callWhenTheModeSwitchesBetweenCallsShouldReturnEveryCode() {
		// The mode is global to the JVM: an application may switch it between any two of
		// the backend's calls.
		List<Integer> results = new ArrayList<>();
		boolean exceptions = false;
		for (int code : new int[] { CUresult.CUDA_ERROR_NOT_READY, CUresult.CUDA_SUCCESS, CUresult.CUDA_ERROR_NOT_READY,
				CUresult.CUDA_ERROR_INVALID_VALUE, CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, UNNAMED_CODE }) {
			results.add(CudaCalls.call(driverCall(exceptions, code)));
			exceptions = !exceptions;
		}
		assertThat(results).containsExactly(CUresult.CUDA_ERROR_NOT_READY, CUresult.CUDA_SUCCESS,
				CUresult.CUDA_ERROR_NOT_READY, CUresult.CUDA_ERROR_INVALID_VALUE, CUresult.CUDA_ERROR_ILLEGAL_ADDRESS,
				UNNAMED_CODE);
	}

	@Test
	void backendClassesWhenCompiledShouldReachTheDriverOnlyThroughCudaCalls() throws Exception {
		Path classes = classesDirectory();
		List<String> callers;
		try (Stream<Path> files = Files.list(classes)) {
			callers = files.filter((file) -> file.toString().endsWith(".class"))
				.filter(CudaCallsTests::refersToJCudaDriver)
				.map((file) -> file.getFileName().toString())
				.sorted()
				.toList();
		}
		assertThat(callers).as("classes of %s that refer to jcuda.driver.JCudaDriver", classes)
			.containsExactly("CudaCalls.class");
	}

	/**
	 * A call that ends like each JCuda driver function: {@code checkResult(result)}.
	 */
	private static IntSupplier driverCall(boolean exceptionsEnabled, int result) {
		return () -> checkResult(exceptionsEnabled, result);
	}

	private static int query(int result) {
		return checkResult(false, result);
	}

	private static int queryThrowing(int result) {
		return checkResult(true, result);
	}

	/** What {@code JCudaDriver.checkResult} does, which needs JCuda's natives to load. */
	private static int checkResult(boolean exceptionsEnabled, int result) {
		if (exceptionsEnabled && result != CUresult.CUDA_SUCCESS) {
			throw new CudaException(CUresult.stringFor(result));
		}
		return result;
	}

	private static Outcome outcome(BooleanSupplier action) {
		try {
			return Outcome.of(action.getAsBoolean());
		}
		catch (BackendException ex) {
			return Outcome.of(ex);
		}
	}

	static Stream<Object[]> allCodes() {
		List<Object[]> codes = new ArrayList<>();
		for (Field field : CUresult.class.getFields()) {
			if (field.getType() == int.class && Modifier.isStatic(field.getModifiers())) {
				try {
					codes.add(new Object[] { field.getName(), field.getInt(null) });
				}
				catch (IllegalAccessException ex) {
					throw new IllegalStateException(ex);
				}
			}
		}
		codes.add(new Object[] { "unnamed " + UNNAMED_CODE, UNNAMED_CODE });
		return codes.stream();
	}

	static Stream<Object[]> failureCodes() {
		return allCodes().filter((code) -> (int) code[1] != CUresult.CUDA_SUCCESS);
	}

	private static Path classesDirectory() throws URISyntaxException {
		URL location = CudaCalls.class.getResource("CudaCalls.class");
		assertThat(location).isNotNull();
		assertThat(location.getProtocol()).as("the backend's classes are a directory here").isEqualTo("file");
		return Path.of(location.toURI()).getParent();
	}

	private static boolean refersToJCudaDriver(Path classFile) {
		try {
			// A class that calls a JCudaDriver method or takes a method reference to one
			// holds the class's internal name in its constant pool (plain ASCII there);
			// constants such as CU_MEMHOSTALLOC_* are inlined.
			return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1)
				.contains("jcuda/driver/JCudaDriver");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * What a checked call or query came to: its answer, or what users see of the failure.
	 *
	 * @param answer the query's answer, or {@code null} after a failure
	 * @param call the failed call
	 * @param errorName the error's name
	 * @param deviceId the device named
	 * @param sticky whether the error fails the device
	 * @param message the exception's message
	 */
	private record Outcome(Boolean answer, String call, String errorName, Integer deviceId, Boolean sticky,
			String message) {

		static Outcome of(boolean answer) {
			return new Outcome(answer, null, null, null, null, null);
		}

		static Outcome of(BackendException failure) {
			return new Outcome(null, failure.getCall(), failure.getErrorName(), failure.getDeviceId(),
					failure.isSticky(), failure.getMessage());
		}

	}

}
