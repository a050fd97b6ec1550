package dev.offload.backend.cuda;

import org.junit.jupiter.api.Assumptions;

import dev.offload.compile.KernelCache;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;

/**
 * The CUDA backend the GPU tests run on: JCuda's binding, or with the system property
 * {@value #PROPERTY}{@code =ffm} the FFM binding ({@code offload-backend-ffm}, on a Java
 * 22+ runtime with it on the class path), made reflectively since these tests compile for
 * Java 17. {@code GPU_RUN_PARTS=ffm} of {@code scripts/gpu/gpu-run.sh} runs the whole
 * CUDA suite that way.
 */
final class CudaTestBackends {

	/** The system property that selects the binding of the whole GPU test run. */
	static final String PROPERTY = "offload.test.cuda-binding";

	private static final String FFM_PROVIDER = "dev.offload.backend.ffm.FfmBackendProvider";

	private CudaTestBackends() {
	}

	/**
	 * Tells whether this run tests the FFM binding.
	 * @return {@code true} when {@value #PROPERTY} is {@code ffm}
	 */
	static boolean isFfm() {
		return "ffm".equals(System.getProperty(PROPERTY));
	}

	/**
	 * Creates the backend of this run's binding, caching kernels in the default
	 * directory.
	 * @return the backend
	 */
	static Backend create() {
		return isFfm() ? ffm(KernelCache.create(KernelCache.defaultDirectory(), null)).create() : CudaBackend.create();
	}

	/**
	 * Creates the backend of this run's binding over a kernel cache.
	 * @param kernelCache the cache
	 * @return the backend
	 */
	static Backend create(KernelCache kernelCache) {
		return isFfm() ? ffm(kernelCache).create() : CudaBackend.create(kernelCache);
	}

	/**
	 * Probes this run's binding.
	 * @return the availability
	 */
	static BackendAvailability probe() {
		if (isFfm()) {
			return ffm(KernelCache.create(KernelCache.defaultDirectory(), null)).probe();
		}
		CudaAvailability availability = CudaBackend.probe();
		return availability.available()
				? BackendAvailability.available(availability.deviceCount(), availability.message())
				: BackendAvailability.unavailable(availability.reason() + ": " + availability.message());
	}

	/**
	 * Skips a test that checks JCuda's own handles (CudaSessions, JCuda's current
	 * context) when the run tests the FFM binding, whose tests check its counterparts.
	 * @param what what the test checks
	 */
	static void assumeJCudaBinding(String what) {
		Assumptions.assumeFalse(isFfm(), () -> what + " is the JCuda binding's; FfmGpuTests checks the FFM binding's");
	}

	/**
	 * Returns the JVM options a child JVM needs to run on this run's binding.
	 * @return the options
	 */
	static String[] childJvmOptions() {
		return isFfm() ? new String[] { "-D" + PROPERTY + "=ffm", "--enable-native-access=ALL-UNNAMED" }
				: new String[0];
	}

	private static BackendProvider ffm(KernelCache kernelCache) {
		try {
			return (BackendProvider) Class.forName(FFM_PROVIDER)
				.getConstructor(KernelCache.class)
				.newInstance(kernelCache);
		}
		catch (ReflectiveOperationException | LinkageError ex) {
			throw new IllegalStateException(PROPERTY + "=ffm needs offload-backend-ffm on the class path and a Java "
					+ "22+ runtime (this is Java " + Runtime.version().feature() + "): " + ex, ex);
		}
	}

}
