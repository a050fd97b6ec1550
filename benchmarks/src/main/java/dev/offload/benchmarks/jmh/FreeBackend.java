package dev.offload.benchmarks.jmh;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
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
 * Measuring a pool over it measures the pool alone. Its memory is real (page-locked host
 * memory is a direct buffer the caller copies into and out of; device memory a handle the
 * host cannot address, as on a GPU) and its modules hold the host kernels' declarations,
 * whose launches do nothing: measuring a fluent call over it measures Offload's own work
 * per call.
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
			return new FreeMemory(bytes, null);
		}

		@Override
		public NativeMemory allocateHost(long bytes) {
			if (bytes > Integer.MAX_VALUE) {
				throw new BackendException("allocateHost", "FREE_ERROR_TOO_LARGE",
						"the free backend's host memory is one direct buffer", 0, false, null);
			}
			return new FreeMemory(bytes, ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.LITTLE_ENDIAN));
		}

		@Override
		public BackendModule loadModule(ModuleDefinition definition) {
			Map<String, BackendKernel> kernels = new HashMap<>();
			definition.hostKernels()
				.forEach((name, kernel) -> kernels.put(name, new FreeKernel(name, kernel.parameters())));
			return new BackendModule() {

				@Override
				public Map<String, BackendKernel> kernels() {
					return kernels;
				}

				@Override
				public void unload() {
				}

			};
		}

		@Override
		public void close() {
		}

	}

	private record FreeKernel(String name, List<ParamKind> parameters) implements BackendKernel {

	}

	/** Memory: host memory has a direct buffer, device memory none (as on a GPU). */
	private static final class FreeMemory implements NativeMemory {

		private final long size;

		private final @Nullable ByteBuffer host;

		private final @Nullable ByteBuffer view;

		FreeMemory(long size, @Nullable ByteBuffer host) {
			this.size = size;
			this.host = host;
			this.view = (host != null) ? host.duplicate().order(ByteOrder.LITTLE_ENDIAN) : null;
		}

		@Override
		public long size() {
			return this.size;
		}

		@Override
		public boolean isHost() {
			return this.host != null;
		}

		@Override
		public @Nullable ByteBuffer hostView() {
			return (this.host != null) ? this.host.duplicate().order(ByteOrder.LITTLE_ENDIAN) : null;
		}

		@Override
		public @Nullable ByteBuffer sharedHostView() {
			return this.view;
		}

		@Override
		public Object handle() {
			return (this.host != null) ? this.host : this;
		}

		@Override
		public void free() {
		}

		@Override
		public NativeMemory slice(long offset, long bytes) {
			if (this.host == null) {
				return NativeMemory.super.slice(offset, bytes);
			}
			ByteBuffer part = this.host.duplicate().position((int) offset).limit((int) (offset + bytes)).slice();
			return new FreeMemory(bytes, part.order(ByteOrder.LITTLE_ENDIAN));
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
