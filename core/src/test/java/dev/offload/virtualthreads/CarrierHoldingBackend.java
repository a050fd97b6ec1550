package dev.offload.virtualthreads;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;
import dev.offload.internal.VirtualThreads;

/**
 * Wraps a backend so that a stream's or an event's {@code synchronize()} holds its
 * virtual thread's carrier for the whole wait, as a blocking JNI call such as
 * {@code cuStreamSynchronize} does. It pins the virtual thread around the wait with the
 * JDK's {@code jdk.internal.vm.Continuation.pin()} (a critical section: on Java 24+
 * {@code synchronized} and {@code Object.wait} no longer pin, a native frame or this
 * still does), so a park inside is recorded as a {@code jdk.VirtualThreadPinned} event;
 * it needs {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}.
 */
final class CarrierHoldingBackend implements Backend {

	private static final Method PIN = continuationMethod("pin");

	private static final Method UNPIN = continuationMethod("unpin");

	private final Backend delegate;

	private final List<BackendDevice> devices;

	private final AtomicLong synchronizes = new AtomicLong();

	CarrierHoldingBackend(Backend delegate) {
		this.delegate = delegate;
		this.devices = delegate.devices().stream().map((device) -> (BackendDevice) new HoldingDevice(device)).toList();
	}

	/**
	 * Returns how many times a stream or an event was synchronized in the driver.
	 */
	long synchronizes() {
		return this.synchronizes.get();
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public List<BackendDevice> devices() {
		return this.devices;
	}

	@Override
	public void close() {
		this.delegate.close();
	}

	private static Method continuationMethod(String name) {
		try {
			return Class.forName("jdk.internal.vm.Continuation").getMethod(name);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Runs {@code wait} so that, on a virtual thread, a park inside holds the carrier
	 * (and is recorded as pinned).
	 * @param wait what waits
	 */
	static void holdingCarrier(Runnable wait) {
		boolean virtual = VirtualThreads.isCurrentThreadVirtual();
		if (virtual) {
			invoke(PIN);
		}
		try {
			wait.run();
		}
		finally {
			if (virtual) {
				invoke(UNPIN);
			}
		}
	}

	private static void invoke(Method method) {
		if (method == null) {
			throw new IllegalStateException("Holding a virtual thread's carrier needs "
					+ "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED");
		}
		try {
			method.invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Continuation." + method.getName() + "() failed", ex);
		}
	}

	private final class HoldingDevice implements BackendDevice {

		private final BackendDevice delegate;

		HoldingDevice(BackendDevice delegate) {
			this.delegate = delegate;
		}

		@Override
		public DeviceInfo info() {
			return this.delegate.info();
		}

		@Override
		public BackendStream createStream(int priority) {
			return new HoldingStream(this.delegate.createStream(priority));
		}

		@Override
		public BackendEvent createEvent() {
			return new HoldingEvent(this.delegate.createEvent());
		}

		@Override
		public NativeMemory allocateDevice(long bytes) {
			return this.delegate.allocateDevice(bytes);
		}

		@Override
		public NativeMemory allocateHost(long bytes) {
			return this.delegate.allocateHost(bytes);
		}

		@Override
		public BackendModule loadModule(ModuleDefinition definition) {
			return this.delegate.loadModule(definition);
		}

		@Override
		public void close() {
			this.delegate.close();
		}

	}

	private final class HoldingStream implements BackendStream {

		private final BackendStream delegate;

		HoldingStream(BackendStream delegate) {
			this.delegate = delegate;
		}

		@Override
		public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
			this.delegate.copy(src, srcOffset, dst, dstOffset, bytes);
		}

		@Override
		public void fill(NativeMemory dst, long offset, long bytes, byte value) {
			this.delegate.fill(dst, offset, bytes, value);
		}

		@Override
		public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
				int sharedMemoryBytes, Object[] args) {
			this.delegate.launch(kernel, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemoryBytes, args);
		}

		@Override
		public void record(BackendEvent event) {
			this.delegate.record(((HoldingEvent) event).delegate);
		}

		@Override
		public void waitFor(BackendEvent event) {
			this.delegate.waitFor(((HoldingEvent) event).delegate);
		}

		@Override
		public boolean query() {
			return this.delegate.query();
		}

		@Override
		public void synchronize() {
			CarrierHoldingBackend.this.synchronizes.incrementAndGet();
			holdingCarrier(this.delegate::synchronize);
		}

		@Override
		public Object handle() {
			return this.delegate.handle();
		}

		@Override
		public void destroy() {
			this.delegate.destroy();
		}

	}

	private final class HoldingEvent implements BackendEvent {

		private final BackendEvent delegate;

		HoldingEvent(BackendEvent delegate) {
			this.delegate = delegate;
		}

		@Override
		public boolean query() {
			return this.delegate.query();
		}

		@Override
		public void synchronize() {
			CarrierHoldingBackend.this.synchronizes.incrementAndGet();
			holdingCarrier(this.delegate::synchronize);
		}

		@Override
		public Object handle() {
			return this.delegate.handle();
		}

		@Override
		public void destroy() {
			this.delegate.destroy();
		}

	}

}
