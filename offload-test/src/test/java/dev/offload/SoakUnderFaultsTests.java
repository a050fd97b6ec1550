package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.test.fault.FaultInjectingBackend.Operation;
import dev.offload.test.fault.FaultInjectingBackend;
import dev.offload.test.kernel.TestKernels;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Load with faults injected at random. The {@code get(..)} bounds below detect deadlocks;
 * they are far above the time the work needs and measure nothing.
 */
@Tag("stress")
class SoakUnderFaultsTests {

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
		AtomicLong completed = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		List<CompletableFuture<Void>> asyncCloses = Collections.synchronizedList(new ArrayList<>());
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
							session.launch(TestKernels.SAXPY, LaunchConfig.of(1, 64), 64, 1f, x, y);
							if (async) {
								asyncCloses.add(session.closeAsync());
							}
							else {
								session.close();
								completed.incrementAndGet();
							}
						}
						catch (OffloadException ex) {
							failed.incrementAndGet();
							try {
								session.close();
							}
							catch (OffloadException reported) {
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
		assertThat(device.completions().eventsInUse()).isZero();
		assertThat(registry.close(Duration.ofSeconds(10))).isTrue();
	}

}
