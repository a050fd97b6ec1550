package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.offload.backend.fault.FaultInjectingBackend;
import dev.offload.backend.fault.FaultInjectingBackend.Operation;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendException;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Load with faults, and shutdown under load. The {@code get(..)} bounds below detect deadlocks; they are far above
 * the time the work needs and measure nothing.
 */
class SoakAndShutdownTests {

	private static final long DEADLOCK_BOUND_SECONDS = 120;

	@Test
	void sixtyFourThreadsWithFaultsShouldLeakNothing() throws Exception {
		FaultInjectingBackend faults = FaultInjectingBackend.wrap(HostBackend.builder().workersPerDevice(4).build());
		faults.failAtRate(Operation.LAUNCH, 0.02, 1)
			.failAtRate(Operation.SYNCHRONIZE, 0.01, 2)
			.failAtRate(Operation.QUERY, 0.01, 3)
			.failAtRate(Operation.CREATE_STREAM, 0.01, 4);
		DeviceRegistry registry = DeviceRegistry.builder(faults)
			.streamPool(new StreamPoolConfig(8, 48, Duration.ofSeconds(30)))
			.build();
		Device device = registry.device(0);
		Kernel saxpy = device.loadModule(TestKernels.MODULE).kernel("saxpy");
		AtomicLong completed = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		List<CompletableFuture<Void>> asyncCloses = java.util.Collections.synchronizedList(new ArrayList<>());
		long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		ExecutorService executor = Executors.newFixedThreadPool(64);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < 64; t++) {
				boolean async = (t % 2) == 0;
				workers.add(executor.submit(() -> {
					while (System.nanoTime() < deadline) {
						OffloadSession session = device.openSession();
						try {
							DeviceBuffer x = session.allocate(256);
							DeviceBuffer y = session.allocate(256);
							session.fill(x, (byte) 0);
							session.launch(saxpy, LaunchConfig.of(1, 64), 64, 1f, x, y);
							if (async) {
								asyncCloses.add(session.closeAsync());
							}
							else {
								session.close();
								completed.incrementAndGet();
							}
						}
						catch (OffloadException | BackendException ex) {
							failed.incrementAndGet();
							try {
								session.close();
							}
							catch (OffloadException | BackendException reported) {
								// The failure is counted once.
							}
						}
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(DEADLOCK_BOUND_SECONDS, TimeUnit.SECONDS);
			}
			for (CompletableFuture<Void> close : List.copyOf(asyncCloses)) {
				close.handle((ok, error) -> null).get(DEADLOCK_BOUND_SECONDS, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		StreamPoolStatistics stats = device.streamPool().statistics();
		assertThat(completed.get() + asyncCloses.size()).isGreaterThan(64);
		assertThat(faults.injected(Operation.LAUNCH)).isPositive();
		assertThat(stats.inUse()).isZero();
		assertThat(stats.waiting()).isZero();
		assertThat(stats.size()).isLessThanOrEqualTo(48);
		assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.idle() + stats.inUse());
		assertThat(stats.discarded()).isPositive();
		assertThat(device.activeSessions()).isZero();
		assertThat(device.eventPool().inUse()).isZero();
		assertThat(registry.close(Duration.ofSeconds(10))).isTrue();
	}

	@Test
	void shutdownDuringLoadShouldLetSessionsFinishAndNeverDestroyALentStream() throws Exception {
		TrackingBackend backend = new TrackingBackend(HostBackend.builder().deviceCount(3).workersPerDevice(4).build());
		DeviceRegistry registry = DeviceRegistry.builder(backend).deviceIds(List.of(2)).build();
		Device device = registry.device(2);
		Kernel saxpy = device.loadModule(TestKernels.MODULE).kernel("saxpy");
		AtomicInteger finished = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		Set<String> unexpected = ConcurrentHashMap.newKeySet();
		CountDownLatch running = new CountDownLatch(16);
		ExecutorService executor = Executors.newFixedThreadPool(16);
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 16; t++) {
			workers.add(executor.submit(() -> {
				running.countDown();
				while (true) {
					try (OffloadSession session = device.openSession()) {
						DeviceBuffer x = session.allocate(4096);
						session.fill(x, (byte) 1);
						session.launch(saxpy, LaunchConfig.of(4, 256), 1024, 1f, x, x);
						session.synchronize();
						finished.incrementAndGet();
					}
					catch (StreamPoolClosedException ex) {
						refused.incrementAndGet();
						return;
					}
					catch (RuntimeException ex) {
						unexpected.add(ex.toString());
						return;
					}
				}
			}));
		}
		TestKernels.await(running);
		await().until(() -> finished.get() > 100);
		Thread completion = device.completionThread();
		assertThat(registry.close(Duration.ofSeconds(30))).isTrue();
		for (Future<?> worker : workers) {
			worker.get(DEADLOCK_BOUND_SECONDS, TimeUnit.SECONDS);
		}
		executor.shutdown();
		assertThat(unexpected).isEmpty();
		assertThat(refused).hasValue(16);
		assertThat(backend.usedAfterDestroy).hasValue(0);
		assertThat(backend.created.get()).isEqualTo(backend.destroyed.get());
		StreamPoolStatistics stats = device.streamPool().statistics();
		assertThat(stats.size()).isZero();
		assertThat(stats.inUse()).isZero();
		if (completion != null) {
			await().until(() -> !completion.isAlive());
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> liveThreads("offload-host2-", "offload-device2-").isEmpty());
	}

	private static Set<String> liveThreads(String... prefixes) {
		return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
			.filter((name) -> java.util.Arrays.stream(prefixes).anyMatch(name::startsWith))
			.collect(Collectors.toSet());
	}

	/**
	 * Counts streams created and destroyed, and any use of a stream after its destruction (which would mean it was
	 * destroyed while lent).
	 */
	private static final class TrackingBackend implements Backend {

		final AtomicInteger created = new AtomicInteger();

		final AtomicInteger destroyed = new AtomicInteger();

		final AtomicInteger usedAfterDestroy = new AtomicInteger();

		private final Backend delegate;

		TrackingBackend(Backend delegate) {
			this.delegate = delegate;
		}

		@Override
		public String name() {
			return this.delegate.name();
		}

		@Override
		public List<BackendDevice> devices() {
			return this.delegate.devices().stream().map((device) -> (BackendDevice) new BackendDevice() {

				@Override
				public DeviceInfo info() {
					return device.info();
				}

				@Override
				public BackendStream createStream(int priority) {
					TrackingBackend.this.created.incrementAndGet();
					return new TrackedStream(device.createStream(priority));
				}

				@Override
				public BackendEvent createEvent() {
					return device.createEvent();
				}

				@Override
				public NativeMemory allocateDevice(long bytes) {
					return device.allocateDevice(bytes);
				}

				@Override
				public NativeMemory allocateHost(long bytes) {
					return device.allocateHost(bytes);
				}

				@Override
				public BackendModule loadModule(ModuleDefinition definition) {
					return device.loadModule(definition);
				}

				@Override
				public void close() {
					device.close();
				}

			}).toList();
		}

		@Override
		public void close() {
			this.delegate.close();
		}

		private final class TrackedStream implements BackendStream {

			private final BackendStream stream;

			private volatile boolean gone;

			TrackedStream(BackendStream stream) {
				this.stream = stream;
			}

			private BackendStream use() {
				if (this.gone) {
					TrackingBackend.this.usedAfterDestroy.incrementAndGet();
				}
				return this.stream;
			}

			@Override
			public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
				use().copy(src, srcOffset, dst, dstOffset, bytes);
			}

			@Override
			public void fill(NativeMemory dst, long offset, long bytes, byte value) {
				use().fill(dst, offset, bytes, value);
			}

			@Override
			public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY,
					int blockZ, int sharedMemoryBytes, Object[] args) {
				use().launch(kernel, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemoryBytes, args);
			}

			@Override
			public void record(BackendEvent event) {
				use().record(event);
			}

			@Override
			public void waitFor(BackendEvent event) {
				use().waitFor(event);
			}

			@Override
			public boolean query() {
				return use().query();
			}

			@Override
			public void synchronize() {
				use().synchronize();
			}

			@Override
			public Object handle() {
				return use().handle();
			}

			@Override
			public void destroy() {
				this.gone = true;
				TrackingBackend.this.destroyed.incrementAndGet();
				this.stream.destroy();
			}

		}

	}

}
