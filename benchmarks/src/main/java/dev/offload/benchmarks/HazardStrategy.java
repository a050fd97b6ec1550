package dev.offload.benchmarks;

import java.util.concurrent.atomic.AtomicLong;

import dev.offload.Device;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.benchmarks.baseline.LlvmStreamManager;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;

/**
 * One way of giving each task of {@link HazardBenchmark} a stream: the task launches the
 * spin kernel on it and waits for it. Implementations are used by many threads at once.
 */
@FunctionalInterface
interface HazardStrategy extends AutoCloseable {

	/**
	 * Runs one task: gets a stream, launches {@code spin(nanos)} on it, waits until it is
	 * done, gives the stream up.
	 * @param nanos how long the kernel spins
	 */
	void runTask(long nanos);

	/**
	 * Destroys the streams the strategy holds; nothing by default.
	 */
	@Override
	default void close() {
	}

	/**
	 * Offload's public path: a session per task, which borrows its stream on the launch
	 * and gives it back on close, once its work is done. With {@code synchronizeFirst},
	 * the idiom many applications write: launch, an explicit {@code synchronize()}, then
	 * close, which finds no work enqueued since the synchronize and skips a second driver
	 * synchronize.
	 */
	final class Sessions implements HazardStrategy {

		private final Device device;

		private final Kernel spin;

		private final boolean synchronizeFirst;

		Sessions(Device device, Kernel spin, boolean synchronizeFirst) {
			this.device = device;
			this.spin = spin;
			this.synchronizeFirst = synchronizeFirst;
		}

		@Override
		public void runTask(long nanos) {
			try (OffloadSession session = this.device.openSession()) {
				session.launch(this.spin, LaunchConfig.of(1, 1), nanos);
				if (this.synchronizeFirst) {
					session.synchronize();
				}
			}
		}

	}

	/**
	 * The old design: a fixed set of streams handed out in turn, shared by whoever gets
	 * the same one, so a task's synchronize also waits for the work of the tasks before
	 * it on that stream.
	 */
	final class RoundRobin implements HazardStrategy {

		private final BackendStream[] streams;

		private final BackendKernel spin;

		private final AtomicLong next = new AtomicLong();

		RoundRobin(BackendDevice device, BackendKernel spin, int count) {
			this.streams = new BackendStream[count];
			for (int i = 0; i < count; i++) {
				this.streams[i] = device.createStream(device.info().leastPriority());
			}
			this.spin = spin;
		}

		@Override
		public void runTask(long nanos) {
			BackendStream stream = this.streams[(int) (this.next.getAndIncrement() % this.streams.length)];
			launch(stream, this.spin, nanos);
			stream.synchronize();
		}

		@Override
		public void close() {
			for (BackendStream stream : this.streams) {
				stream.destroy();
			}
		}

	}

	/**
	 * A stream created for each task and destroyed after it.
	 */
	final class CreateDestroy implements HazardStrategy {

		private final BackendDevice device;

		private final BackendKernel spin;

		CreateDestroy(BackendDevice device, BackendKernel spin) {
			this.device = device;
			this.spin = spin;
		}

		@Override
		public void runTask(long nanos) {
			BackendStream stream = this.device.createStream(this.device.info().leastPriority());
			try {
				launch(stream, this.spin, nanos);
				stream.synchronize();
			}
			finally {
				stream.destroy();
			}
		}

	}

	/**
	 * A bare borrow/return pool written directly on the backend SPI: LLVM's array stack
	 * under one lock ({@link LlvmStreamManager}), with nothing else around it.
	 */
	final class BarePool implements HazardStrategy {

		private final LlvmStreamManager pool;

		private final BackendKernel spin;

		BarePool(BackendDevice device, BackendKernel spin, int initialSize) {
			this.pool = new LlvmStreamManager(device, device.info().leastPriority(), initialSize);
			this.spin = spin;
		}

		@Override
		public void runTask(long nanos) {
			BackendStream stream = this.pool.getStream();
			try {
				launch(stream, this.spin, nanos);
				stream.synchronize();
			}
			finally {
				this.pool.returnStream(stream);
			}
		}

		@Override
		public void close() {
			this.pool.destroy();
		}

	}

	private static void launch(BackendStream stream, BackendKernel spin, long nanos) {
		stream.launch(spin, 1, 1, 1, 1, 1, 1, 0, new Object[] { nanos });
	}

}
