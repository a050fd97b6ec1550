package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hazard of review D77412: with streams handed out round-robin, a light task's
 * synchronize waits for a heavy task that happened to land on the same stream. The pool
 * lends each session its own stream, so it cannot happen; the round-robin lender in this
 * test shows that the scenario does catch the hazard.
 */
class StreamSharingHazardTests {

	private static final int LIGHT_SESSIONS = 64;

	private DeviceRegistry registry;

	private Device device;

	private Kernel hold;

	private Kernel saxpy;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(4).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.build();
		this.device = this.registry.device(0);
		KernelModule module = this.device.loadModule(TestKernels.MODULE);
		this.hold = module.kernel("hold");
		this.saxpy = module.kernel("saxpy");
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void lightSessionsWhenHeavySessionRunsShouldAllCompleteBeforeIt() throws Exception {
		int gateId = 101;
		OffloadSession heavy = this.device.openSession();
		heavy.launch(this.hold, LaunchConfig.of(1, 1), gateId);
		TestKernels.await(TestKernels.started(gateId));
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<CompletableFuture<Integer>> lights = new ArrayList<>();
			for (int i = 0; i < LIGHT_SESSIONS; i++) {
				lights.add(CompletableFuture.supplyAsync(this::lightSession, executor));
			}
			CompletableFuture.allOf(lights.toArray(new CompletableFuture[0])).get();
			assertThat(heavy.hasStream()).isTrue();
			// Every light session synchronized and closed while the heavy kernel is still
			// held by its gate.
			assertThat(TestKernels.gate(gateId).getCount()).isEqualTo(1);
			assertThat(lights).allSatisfy((light) -> assertThat(light.get()).isNotEqualTo(heavy.streamId()));
		}
		finally {
			TestKernels.gate(gateId).countDown();
			executor.shutdownNow();
		}
		heavy.close();
		assertThat(this.device.streamPool().statistics().inUse()).isZero();
	}

	private int lightSession() {
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer x = session.allocate(64 * Float.BYTES);
			DeviceBuffer y = session.allocate(64 * Float.BYTES);
			session.fill(x, (byte) 0);
			session.fill(y, (byte) 0);
			session.launch(this.saxpy, LaunchConfig.of(1, 64), 64, 2f, x, y);
			session.synchronize();
			return session.streamId();
		}
	}

	@Test
	void roundRobinLenderWhenHeavyTaskSharesItsStreamShouldMakeLightTaskWait() throws Exception {
		int gateId = 102;
		BackendDevice backendDevice = this.device.backendDevice();
		RoundRobinLender lender = new RoundRobinLender(backendDevice, 4);
		BackendStream heavyStream = lender.next();
		heavyStream.launch(this.hold.backendKernel(), 1, 1, 1, 1, 1, 1, 0, new Object[] { gateId });
		TestKernels.await(TestKernels.started(gateId));
		AtomicInteger lightDone = new AtomicInteger();
		CountDownLatch enqueued = new CountDownLatch(4);
		ExecutorService executor = Executors.newFixedThreadPool(4);
		List<CompletableFuture<Void>> lights = new ArrayList<>();
		try {
			for (int i = 0; i < 4; i++) {
				BackendStream stream = lender.next();
				lights.add(CompletableFuture.runAsync(() -> {
					stream.launch(this.saxpy.backendKernel(), 1, 1, 1, 1, 1, 1, 0, new Object[] { 0, 1f, null, null });
					enqueued.countDown();
					stream.synchronize();
					lightDone.incrementAndGet();
				}, executor));
			}
			TestKernels.await(enqueued);
			// The light tasks on the three other streams finish; the one that shares the
			// heavy task's stream cannot, because its work is queued behind the held
			// kernel.
			org.awaitility.Awaitility.await().until(() -> lightDone.get() == 3);
			assertThat(lights.stream().filter((light) -> !light.isDone())).hasSize(1);
			assertThat(lights.get(3)).isNotDone();
		}
		finally {
			TestKernels.gate(gateId).countDown();
		}
		CompletableFuture.allOf(lights.toArray(new CompletableFuture[0])).get();
		assertThat(lightDone).hasValue(4);
		executor.shutdownNow();
	}

	/**
	 * The old design: a fixed set of streams handed out in turn, whatever is still
	 * running on them.
	 */
	private static final class RoundRobinLender {

		private final List<BackendStream> streams = new ArrayList<>();

		private int next;

		RoundRobinLender(BackendDevice device, int count) {
			for (int i = 0; i < count; i++) {
				this.streams.add(device.createStream(0));
			}
		}

		synchronized BackendStream next() {
			BackendStream stream = this.streams.get(this.next);
			this.next = (this.next + 1) % this.streams.size();
			return stream;
		}

	}

}
