package dev.offload;

import java.util.concurrent.atomic.AtomicInteger;

import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A backend that refuses what a driver refuses at once, without failing the device: a
 * launch asking for more than 64 KiB of shared memory ({@code cuLaunchKernel}'s
 * {@code CUDA_ERROR_INVALID_VALUE}), and the next {@link #refuseStreamCreations} stream
 * creations ({@code CUDA_ERROR_OUT_OF_MEMORY}). Everything else is its delegate's.
 */
final class RefusingBackend extends StreamWrappingBackend {

	private final AtomicInteger streamCreationsToRefuse = new AtomicInteger();

	RefusingBackend(Backend delegate) {
		super(delegate);
	}

	/**
	 * Refuses the next {@code count} stream creations.
	 * @param count how many
	 */
	void refuseStreamCreations(int count) {
		this.streamCreationsToRefuse.set(count);
	}

	@Override
	BackendStream createStream(BackendDevice device, int priority) {
		if (this.streamCreationsToRefuse.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
			throw new BackendException("cuStreamCreateWithPriority", "CUDA_ERROR_OUT_OF_MEMORY", "out of memory",
					device.info().id(), false, null);
		}
		return new RefusingStream(device.createStream(priority), device.info().id());
	}

	private record RefusingStream(BackendStream stream, int deviceId) implements BackendStream {

		@Override
		public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
			this.stream.copy(src, srcOffset, dst, dstOffset, bytes);
		}

		@Override
		public void fill(NativeMemory dst, long offset, long bytes, byte value) {
			this.stream.fill(dst, offset, bytes, value);
		}

		@Override
		public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
				int sharedMemoryBytes, Object[] args) {
			if (sharedMemoryBytes > 64 * 1024) {
				throw new BackendException("cuLaunchKernel", "CUDA_ERROR_INVALID_VALUE", "invalid argument",
						this.deviceId, false, null);
			}
			this.stream.launch(kernel, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemoryBytes, args);
		}

		@Override
		public void record(BackendEvent event) {
			this.stream.record(event);
		}

		@Override
		public void waitFor(BackendEvent event) {
			this.stream.waitFor(event);
		}

		@Override
		public boolean query() {
			return this.stream.query();
		}

		@Override
		public void synchronize() {
			this.stream.synchronize();
		}

		@Override
		public Object handle() {
			return this.stream.handle();
		}

		@Override
		public void destroy() {
			this.stream.destroy();
		}

	}

}
