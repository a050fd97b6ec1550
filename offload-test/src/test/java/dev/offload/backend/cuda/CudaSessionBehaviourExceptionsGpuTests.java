package dev.offload.backend.cuda;

/**
 * The session behaviour suite on a real GPU with JCuda's exceptions switched on after the
 * registry started, as an application that calls
 * {@code JCudaDriver.setExceptionsEnabled(true)} does: queries that are not ready,
 * failures and closing must behave exactly as in the default mode.
 */
@GpuTests
class CudaSessionBehaviourExceptionsGpuTests extends CudaSessionBehaviourGpuTests {

	@Override
	JCudaExceptionMode exceptionMode() {
		return JCudaExceptionMode.EXCEPTIONS;
	}

}
