package dev.offload.benchmarks.jmh;

import java.util.List;

import dev.offload.BackendException;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;

/**
 * A {@link Backend} of one device whose streams and events cost nothing: creating one
 * allocates a small object, enqueueing does nothing, and every stream is always idle.
 * Measuring a pool over it measures the pool alone.
 */
public final class FreeBackend implements Backend {

	/**
	 * The backend's name.
	 */
	public static final String NAME = "free";

	private final List<BackendDevice> devices = List.of(new FreeDevice());

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<BackendDevice> devices() {
		return this.devices;
	}

	@Override
	public void close() {
	}

	private static final class FreeDevice implements BackendDevice {

		private final DeviceInfo info = new DeviceInfo(0, "Free device", 0, 0, 1L << 30, 1, 0, -5);

		@Override
		public DeviceInfo info() {
			return this.info;
		}

		@Override
		public BackendStream createStream(int priority) {
			return new FreeStream();
		}

		@Override
		public BackendEvent createEvent() {
			return new FreeEvent();
		}

		@Override
		public NativeMemory allocateDevice(long bytes) {
			throw unsupported("allocateDevice");
		}

		@Override
		public NativeMemory allocateHost(long bytes) {
			throw unsupported("allocateHost");
		}

		@Override
		public BackendModule loadModule(ModuleDefinition definition) {
			throw unsupported("loadModule");
		}

		@Override
		public void close() {
		}

		private static BackendException unsupported(String call) {
			return new BackendException(call, "FREE_ERROR_NOT_SUPPORTED", "the free backend has streams only", 0, false,
					null);
		}

	}

	private static final class FreeStream implements BackendStream {

		@Override
		public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
		}

		@Override
		public void fill(NativeMemory dst, long offset, long bytes, byte value) {
		}

		@Override
		public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
				int sharedMemoryBytes, Object[] args) {
		}

		@Override
		public void record(BackendEvent event) {
		}

		@Override
		public void waitFor(BackendEvent event) {
		}

		@Override
		public boolean query() {
			return true;
		}

		@Override
		public void synchronize() {
		}

		@Override
		public Object handle() {
			return this;
		}

		@Override
		public void destroy() {
		}

	}

	private static final class FreeEvent implements BackendEvent {

		@Override
		public boolean query() {
			return true;
		}

		@Override
		public void synchronize() {
		}

		@Override
		public Object handle() {
			return this;
		}

		@Override
		public void destroy() {
		}

	}

}
