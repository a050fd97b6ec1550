package dev.offload.backend.cuda;

/**
 * What both CUDA bindings (JCuda's and the FFM one in {@code offload-backend-ffm}) know
 * of the driver's results: which errors are sticky. One list, so that both fail a device
 * on the same errors.
 */
public final class CudaResults {

	private static final int CUDA_ERROR_ECC_UNCORRECTABLE = 214;

	private static final int CUDA_ERROR_NVLINK_UNCORRECTABLE = 220;

	private static final int CUDA_ERROR_ILLEGAL_ADDRESS = 700;

	private static final int CUDA_ERROR_LAUNCH_TIMEOUT = 702;

	private static final int CUDA_ERROR_CONTEXT_IS_DESTROYED = 709;

	private static final int CUDA_ERROR_ASSERT = 710;

	private static final int CUDA_ERROR_HARDWARE_STACK_ERROR = 714;

	private static final int CUDA_ERROR_ILLEGAL_INSTRUCTION = 715;

	private static final int CUDA_ERROR_MISALIGNED_ADDRESS = 716;

	private static final int CUDA_ERROR_INVALID_ADDRESS_SPACE = 717;

	private static final int CUDA_ERROR_INVALID_PC = 718;

	private static final int CUDA_ERROR_LAUNCH_FAILED = 719;

	private static final int CUDA_ERROR_EXTERNAL_DEVICE = 911;

	private CudaResults() {
	}

	/**
	 * Tells whether an error leaves the context unusable, so that every later call on it
	 * fails too: a kernel's fault (illegal address or instruction, misalignment, stack,
	 * assert, timeout), an uncorrectable ECC or NVLink error, a destroyed context, an
	 * external device's failure.
	 * @param result a {@code CUresult}
	 * @return {@code true} for sticky errors
	 */
	public static boolean isSticky(int result) {
		return switch (result) {
			case CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_TIMEOUT, CUDA_ERROR_LAUNCH_FAILED,
					CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_HARDWARE_STACK_ERROR,
					CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_INVALID_PC, CUDA_ERROR_ASSERT,
					CUDA_ERROR_ECC_UNCORRECTABLE, CUDA_ERROR_NVLINK_UNCORRECTABLE, CUDA_ERROR_CONTEXT_IS_DESTROYED,
					CUDA_ERROR_EXTERNAL_DEVICE ->
				true;
			default -> false;
		};
	}

}
