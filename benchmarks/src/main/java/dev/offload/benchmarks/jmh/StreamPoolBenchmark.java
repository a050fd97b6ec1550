package dev.offload.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.benchmarks.baseline.CommonsStreamPool;
import dev.offload.benchmarks.baseline.LlvmStreamManager;
import dev.offload.benchmarks.prototype.SlotStreamPool;
import dev.offload.internal.lending.LendingPool;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;

/**
 * Borrow + release of one stream, by every thread of the run on one device's pool:
 * Offload's lending algorithm alone (the {@link LendingPool} inside {@link StreamPool},
 * over {@link FreeItems}) and the stream pool through a session, against the LLVM
 * runtime's design ({@link LlvmStreamManager}) and Commons Pool2
 * ({@link CommonsStreamPool}), and beside a prototype of the fix proposed for the pool
 * ({@link SlotStreamPool}), on a backend whose streams cost nothing ({@link FreeBackend})
 * and on the host backend. Run the thread counts with {@code -t}:
 * {@code java -jar benchmarks.jar StreamPoolBenchmark -t 16}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class StreamPoolBenchmark {

	/**
	 * The backend the streams come from: {@code free} or {@code host}.
	 */
	@Param({ FreeBackend.NAME, HostBackend.NAME })
	public String backend;

	private static final int NORMAL = StreamPriority.NORMAL.ordinal();

	private DeviceRegistry registry;

	private Device device;

	private LendingPool<FreeItems.Item> pool;

	private Backend llvmBackend;

	private LlvmStreamManager llvm;

	private Backend commonsBackend;

	private CommonsStreamPool commonsPool;

	private Backend prototypeBackend;

	private SlotStreamPool prototype;

	/**
	 * Builds every pool over its own backend of the same kind, with the LLVM runtime's 32
	 * initial streams.
	 */
	@Setup(Level.Trial)
	public void setUp() {
		this.registry = DeviceRegistry.builder(newBackend()).build();
		this.device = this.registry.device(0);
		this.pool = FreeItems.pool(StreamPoolConfig.DEFAULT_INITIAL_SIZE, 0,
				StreamPoolConfig.DEFAULTS.borrowTimeout().toNanos());
		this.llvmBackend = newBackend();
		BackendDevice llvmDevice = this.llvmBackend.devices().get(0);
		this.llvm = new LlvmStreamManager(llvmDevice, llvmDevice.info().leastPriority(),
				StreamPoolConfig.DEFAULT_INITIAL_SIZE);
		this.commonsBackend = newBackend();
		BackendDevice commonsDevice = this.commonsBackend.devices().get(0);
		this.commonsPool = new CommonsStreamPool(commonsDevice, commonsDevice.info().leastPriority(),
				StreamPoolConfig.DEFAULT_INITIAL_SIZE);
		this.prototypeBackend = newBackend();
		BackendDevice prototypeDevice = this.prototypeBackend.devices().get(0);
		this.prototype = new SlotStreamPool(prototypeDevice, prototypeDevice.info().leastPriority(),
				StreamPoolConfig.DEFAULT_INITIAL_SIZE);
	}

	private Backend newBackend() {
		return switch (this.backend) {
			case FreeBackend.NAME -> new FreeBackend();
			case HostBackend.NAME -> HostBackend.builder().build();
			default -> throw new IllegalArgumentException("Unknown backend " + this.backend);
		};
	}

	/**
	 * Closes the pools.
	 */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.pool.shutdown(0);
		this.registry.close();
		this.llvm.destroy();
		this.llvmBackend.close();
		this.commonsPool.close();
		this.commonsBackend.close();
		this.prototype.destroy();
		this.prototypeBackend.close();
	}

	/**
	 * Offload's lending algorithm alone: {@code LendingPool.borrow} + {@code release} of
	 * a {@link dev.offload.StreamPriority#NORMAL} item, as the stream pool does them for
	 * a session, without the device's checks and events (the same for either backend).
	 * @return the item, so that the work is not eliminated
	 */
	@Benchmark
	public Object offloadPool() {
		FreeItems.Item item = this.pool.borrow(NORMAL);
		this.pool.release(item);
		return item;
	}

	/**
	 * Offload's public path: open a session, borrow its stream, close it (a synchronize
	 * of the idle stream, then the release).
	 * @return the stream's id
	 */
	@Benchmark
	public int offloadSession() {
		try (OffloadSession session = this.device.openSession()) {
			return session.streamId();
		}
	}

	/**
	 * The LLVM runtime's design: an array stack under one lock per device.
	 * @return the stream
	 */
	@Benchmark
	public Object llvmStack() {
		BackendStream stream = this.llvm.getStream();
		this.llvm.returnStream(stream);
		return stream;
	}

	/**
	 * The prototype of the fast path proposed for Offload's pool in
	 * {@code docs/benchmarks.md}.
	 * @return the stream
	 */
	@Benchmark
	public Object prototypePool() {
		SlotStreamPool.Slot slot = this.prototype.borrow();
		this.prototype.release(slot);
		return slot;
	}

	/**
	 * Apache Commons Pool2's {@code GenericObjectPool}.
	 * @return the stream
	 * @throws Exception as {@code borrowObject} does
	 */
	@Benchmark
	public Object commonsPool2() throws Exception {
		BackendStream stream = this.commonsPool.borrow();
		this.commonsPool.release(stream);
		return stream;
	}

}
