package dev.offload.autoconfigure;

import java.util.List;

import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;

/**
 * Stand-ins for {@code dev.offload.backend.cuda.CudaBackend}, with the static {@code probe()} and {@code create()}
 * that {@link CudaBackendSupport} calls.
 */
final class FakeCudaBackends {

	private FakeCudaBackends() {
	}

	/**
	 * What a probe returns.
	 *
	 * @param available whether CUDA is usable
	 * @param reason why not
	 */
	public record Probe(boolean available, String reason) {

	}

	/**
	 * A backend that names itself {@code cuda} and has no devices.
	 */
	public static class Usable implements Backend {

		public static Probe probe() {
			return new Probe(true, null);
		}

		public static Backend create() {
			return new Usable();
		}

		@Override
		public String name() {
			return "cuda";
		}

		@Override
		public List<BackendDevice> devices() {
			return List.of();
		}

		@Override
		public void close() {
		}

	}

	/**
	 * A machine without a GPU.
	 */
	public static class NoDevice {

		public static Probe probe() {
			return new Probe(false, "cuInit failed: CUDA_ERROR_NO_DEVICE");
		}

	}

	/**
	 * A probe that breaks its promise not to throw.
	 */
	public static class ThrowingProbe {

		public static Probe probe() {
			throw new UnsatisfiedLinkError("no JCudaDriver-12.0.0-linux-x86_64 in java.library.path");
		}

	}

	/**
	 * A probe that answers with a boolean, and a backend made by its constructor.
	 */
	public static class BooleanProbe implements Backend {

		public static boolean probe() {
			return true;
		}

		@Override
		public String name() {
			return "cuda";
		}

		@Override
		public List<BackendDevice> devices() {
			return List.of();
		}

		@Override
		public void close() {
		}

	}

	/**
	 * A usable probe whose backend fails to start.
	 */
	public static class FailingCreate {

		public static Probe probe() {
			return new Probe(true, null);
		}

		public static Backend create() {
			throw new IllegalStateException("cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY");
		}

	}

}
