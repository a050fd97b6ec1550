package dev.offload;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

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
 * A backend of one device that looks native to a library and computes nothing: its
 * streams and device memory have made-up addresses ({@code 0x5...} and {@code 0xd...}), a
 * library's call runs at once on the caller's thread, and everything else enqueued is
 * done at once (copies, fills and launches are refused). It lets a test see what a native
 * library's binding is handed (against a {@link FakeLibrary}) without a GPU.
 */
public final class FakeGpuBackend implements Backend {

	/** The device's UUID, without {@code GPU-}. */
	public static final String UUID = "00000000-0000-0000-0000-000000000001";

	private final BackendDevice device;

	/**
	 * Creates the backend.
	 * @param bindings the backend's own library bindings by the type asked for
	 * ({@link BackendStream#libraryBinding}); {@code null} for none
	 */
	public FakeGpuBackend(Function<Class<?>, @Nullable Object> bindings) {
		this.device = new Device(bindings);
	}

	@Override
	public String name() {
		return "fake-gpu";
	}

	@Override
	public List<BackendDevice> devices() {
		return List.of(this.device);
	}

	@Override
	public void close() {
	}

	private static final class Device implements BackendDevice {

		private final Function<Class<?>, @Nullable Object> bindings;

		private final AtomicLong streams = new AtomicLong(0x5000);

		private final AtomicLong memory = new AtomicLong(0xd0000000L);

		Device(Function<Class<?>, @Nullable Object> bindings) {
			this.bindings = bindings;
		}

		@Override
		public DeviceInfo info() {
			return new DeviceInfo(0, "fake GPU", 9, 0, 1L << 30, 1, 0, -1);
		}

		@Override
		public Optional<String> uuid() {
			return Optional.of(UUID);
		}

		@Override
		public BackendStream createStream(int priority) {
			return new Stream(this.streams.getAndAdd(0x10), this.bindings);
		}

		@Override
		public BackendEvent createEvent() {
			return new BackendEvent() {

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

			};
		}

		@Override
		public NativeMemory allocateDevice(long bytes) {
			long address = this.memory.getAndAdd((bytes + 0xffff) & ~0xffffL);
			return new Memory(address, bytes);
		}

		@Override
		public NativeMemory allocateHost(long bytes) {
			throw new UnsupportedOperationException("the fake GPU has no host memory");
		}

		@Override
		public BackendModule loadModule(ModuleDefinition definition) {
			throw new UnsupportedOperationException("the fake GPU loads no modules");
		}

		@Override
		public void close() {
		}

	}

	private record Memory(long address, long size) implements NativeMemory {

		@Override
		public boolean isHost() {
			return false;
		}

		@Override
		public @Nullable ByteBuffer hostView() {
			return null;
		}

		@Override
		public Object handle() {
			return this.address;
		}

		@Override
		public long nativeAddress() {
			return this.address;
		}

		@Override
		public void free() {
		}

	}

	private record Stream(long address, Function<Class<?>, @Nullable Object> bindings) implements BackendStream {

		@Override
		public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
			throw new UnsupportedOperationException("the fake GPU copies nothing");
		}

		@Override
		public void fill(NativeMemory dst, long offset, long bytes, byte value) {
			throw new UnsupportedOperationException("the fake GPU fills nothing");
		}

		@Override
		public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
				int sharedMemoryBytes, Object[] args) {
			throw new UnsupportedOperationException("the fake GPU launches nothing");
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
			return this.address;
		}

		@Override
		public long nativeAddress() {
			return this.address;
		}

		@Override
		public void callLibrary(String operation, Runnable call) {
			call.run();
		}

		@Override
		public <T> @Nullable T libraryBinding(Class<T> type) {
			Object binding = this.bindings.apply(type);
			return type.isInstance(binding) ? type.cast(binding) : null;
		}

		@Override
		public void destroy() {
		}

	}

}
