package dev.offload.concurrency;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
 * An in-memory backend of one device whose streams do no work but count how they are
 * created, destroyed and used, so that concurrency tests can check a pool's accounting
 * against the backend's and catch a stream used after it was destroyed. It has no threads
 * and allocates nothing, which keeps model checkers' search spaces small.
 */
public final class CountingBackend implements Backend {

	private final CountingDevice device = new CountingDevice();

	/**
	 * Returns the one device.
	 * @return the device
	 */
	public CountingDevice device() {
		return this.device;
	}

	@Override
	public String name() {
		return "counting";
	}

	@Override
	public List<BackendDevice> devices() {
		return List.of(this.device);
	}

	@Override
	public void close() {
	}

	/**
	 * The device of a {@link CountingBackend}: counts streams created and destroyed.
	 */
	public static final class CountingDevice implements BackendDevice {

		private static final DeviceInfo INFO = new DeviceInfo(0, "counting", 0, 0, 1L << 30, 1, 0, -1);

		private final AtomicInteger created = new AtomicInteger();

		private final AtomicInteger destroyed = new AtomicInteger();

		private final AtomicInteger misuses = new AtomicInteger();

		/**
		 * Returns the streams created so far.
		 * @return the count
		 */
		public int created() {
			return this.created.get();
		}

		/**
		 * Returns the stream destructions so far, a stream destroyed twice counting
		 * twice.
		 * @return the count
		 */
		public int destroyed() {
			return this.destroyed.get();
		}

		/**
		 * Returns how often a stream was used or destroyed after it had been destroyed.
		 * @return the count, 0 in a correct run
		 */
		public int misuses() {
			return this.misuses.get();
		}

		@Override
		public DeviceInfo info() {
			return INFO;
		}

		@Override
		public BackendStream createStream(int priority) {
			this.created.incrementAndGet();
			return new CountingStream(this);
		}

		@Override
		public BackendEvent createEvent() {
			throw unsupported("createEvent");
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
			return new BackendException(call, "COUNTING_UNSUPPORTED", "the counting backend only has streams", 0, false,
					null);
		}

	}

	/**
	 * A stream of a {@link CountingDevice}: no work, but a use or destruction after
	 * destruction is counted.
	 */
	public static final class CountingStream implements BackendStream {

		private final CountingDevice device;

		private final AtomicInteger destructions = new AtomicInteger();

		private volatile boolean failWork;

		CountingStream(CountingDevice device) {
			this.device = device;
		}

		/**
		 * Tells whether the stream was destroyed.
		 * @return {@code true} once destroyed
		 */
		public boolean isDestroyed() {
			return this.destructions.get() > 0;
		}

		/**
		 * Makes this stream's work fail from now on: query and synchronize throw a
		 * non-sticky error, so that the session using it discards it.
		 */
		public void failWork() {
			this.failWork = true;
		}

		private void use() {
			if (isDestroyed()) {
				this.device.misuses.incrementAndGet();
			}
		}

		private void work(String call) {
			use();
			if (this.failWork) {
				throw new BackendException(call, "COUNTING_WORK_FAILED", "work made to fail", 0, false, null);
			}
		}

		@Override
		public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
			use();
		}

		@Override
		public void fill(NativeMemory dst, long offset, long bytes, byte value) {
			use();
		}

		@Override
		public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
				int sharedMemoryBytes, Object[] args) {
			use();
		}

		@Override
		public void record(BackendEvent event) {
			use();
		}

		@Override
		public void waitFor(BackendEvent event) {
			use();
		}

		@Override
		public boolean query() {
			work("query");
			return true;
		}

		@Override
		public void synchronize() {
			work("synchronize");
		}

		@Override
		public Object handle() {
			use();
			return this;
		}

		@Override
		public void destroy() {
			if (this.destructions.getAndIncrement() > 0) {
				this.device.misuses.incrementAndGet();
			}
			this.device.destroyed.incrementAndGet();
		}

	}

}
