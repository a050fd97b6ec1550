package dev.offload.backend.cuda;

import jcuda.driver.JCudaDriver;

/**
 * JCuda's exception mode ({@link JCudaDriver#setExceptionsEnabled(boolean)}, global to
 * the JVM), switched by the GPU tests the way applications switch it: at any time, also
 * after Offload started. Setting the system property {@value #PROPERTY} to {@code true}
 * makes every CUDA GPU test switch exceptions on once its registry has started.
 */
enum JCudaExceptionMode {

	/** JCuda's default: every driver call returns its {@code CUresult}. */
	RETURN_CODES(false),

	/**
	 * What JCuda's samples switch on: a call that does not succeed throws a
	 * {@code jcuda.CudaException}.
	 */
	EXCEPTIONS(true);

	/** The system property that selects the mode of the whole GPU test run. */
	static final String PROPERTY = "offload.test.jcuda-exceptions";

	private final boolean exceptionsEnabled;

	JCudaExceptionMode(boolean exceptionsEnabled) {
		this.exceptionsEnabled = exceptionsEnabled;
	}

	/**
	 * Switches JCuda to this mode, for the whole JVM.
	 */
	void apply() {
		JCudaDriver.setExceptionsEnabled(this.exceptionsEnabled);
	}

	/**
	 * Returns the mode that {@value #PROPERTY} selects for this run
	 * ({@link #RETURN_CODES} unless it is {@code true}).
	 * @return the mode
	 */
	static JCudaExceptionMode configured() {
		return Boolean.getBoolean(PROPERTY) ? EXCEPTIONS : RETURN_CODES;
	}

}
