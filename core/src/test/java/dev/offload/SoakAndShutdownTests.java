package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shutdown under load (load with faults runs in offload-test, beside the fault injector).
 * The {@code get(..)} bounds below detect deadlocks; they are far above the time the work
 * needs and measure nothing.
 */
@Tag("stress")
class SoakAndShutdownTests {

	private static final long DEADLOCK_BOUND_SECONDS = 120;

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
		Thread completion = device.completions().thread();
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
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.map(Thread::getName)
			.filter((name) -> java.util.Arrays.stream(prefixes).anyMatch(name::startsWith))
			.collect(Collectors.toSet());
	}

	/**
	 * Counts streams created and destroyed, and any use of a stream after its destruction
	 * (which would mean it was destroyed while lent).
	 */
	private static final class TrackingBackend extends StreamWrappingBackend {

		final AtomicInteger created = new AtomicInteger();

		final AtomicInteger destroyed = new AtomicInteger();

		final AtomicInteger usedAfterDestroy = new AtomicInteger();

		TrackingBackend(Backend delegate) {
			super(delegate);
		}

		@Override
		BackendStream createStream(BackendDevice device, int priority) {
			this.created.incrementAndGet();
			return new TrackedStream(device.createStream(priority));
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
