package dev.offload.virtualthreads;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.internal.VirtualThreads;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Waits on virtual threads park and are woken by the device's completion thread; they
 * never block in the backend's synchronize, which {@link CarrierHoldingBackend} makes
 * hold the carrier as a blocking JNI call would. The tests tagged {@code java21} run on a
 * Java 21+ runtime (the build's java25-test execution), with two carrier threads.
 */
class VirtualThreadWaitTests {

	private static final int GATE = 1;

	private final CountDownLatch gate = new CountDownLatch(1);

	private CarrierHoldingBackend backend;

	private DeviceRegistry registry;

	private Device device;

	private Kernel hold;

	@BeforeEach
	void setUp() {
		this.backend = new CarrierHoldingBackend(HostBackend.builder().workersPerDevice(4).build());
		// A bounded pool, so that borrowers wait for streams too.
		this.registry = DeviceRegistry.builder(this.backend)
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(8).withMaxSize(32))
			.build();
		this.device = this.registry.device(0);
		ModuleDefinition module = ModuleDefinition.builder("virtual-thread-waits")
			.hostKernel("hold", List.of(ParamKind.INT32), (t) -> awaitGate())
			.build();
		this.hold = this.device.loadModule(module).kernel("hold");
	}

	@AfterEach
	void tearDown() {
		this.gate.countDown();
		this.registry.close(Duration.ofSeconds(10));
	}

	@Test
	void synchronizeWhenOnPlatformThreadShouldWaitInTheBackend() {
		try (OffloadSession session = this.device.openSession()) {
			session.fill(session.allocate(64), (byte) 1);
			session.synchronize();
		}
		assertThat(this.backend.synchronizes()).isEqualTo(1);
	}

	@Test
	@Tag("java21")
	void sessionsWhenTenThousandVirtualThreadsRunThemShouldAllFinish() throws Exception {
		assumeVirtualThreads();
		AtomicInteger wrong = new AtomicInteger();
		OnVirtualThreads.run(10_000, (i) -> {
			byte value = (byte) i;
			try (OffloadSession session = this.device.openSession()) {
				DeviceBuffer onDevice = session.allocate(64);
				HostBuffer onHost = session.allocateHost(64);
				session.fill(onDevice, value);
				session.copy(onDevice, onHost);
				session.synchronize();
				// The wait really waited for this session's own work.
				if (onHost.getBytes(0, new byte[64])[63] != value) {
					wrong.incrementAndGet();
				}
			}
		});
		assertThat(wrong).hasValue(0);
		assertThat(this.backend.synchronizes()).isZero();
		assertThat(this.device.streamPool().inUse()).isZero();
		assertThat(this.device.activeSessions()).isZero();
	}

	@Test
	@Tag("java21")
	void waitsWhenMoreVirtualThreadsWaitThanCarriersExistShouldLetAnotherVirtualThreadRun() throws Exception {
		assumeVirtualThreads();
		int waiters = 16;
		CountDownLatch enqueued = new CountDownLatch(waiters);
		AtomicInteger finished = new AtomicInteger();
		ExecutorService executor = OnVirtualThreads.executor();
		try {
			for (int i = 0; i < waiters; i++) {
				executor.execute(() -> {
					try (OffloadSession session = this.device.openSession()) {
						session.launch(this.hold, LaunchConfig.of(1, 1), GATE);
						enqueued.countDown();
						session.synchronize();
					}
					finished.incrementAndGet();
				});
			}
			// Runs only if the waiting virtual threads left their carriers free (two in
			// this test's runtime).
			executor.execute(() -> {
				awaitQuietly(enqueued);
				this.gate.countDown();
			});
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(finished).hasValue(waiters));
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	@Tag("java21")
	void waitsWhenOnVirtualThreadsShouldRecordNoPinnedEventFromOffload() throws Exception {
		assumeVirtualThreads();
		this.gate.countDown();
		OffloadTemplate template = new OffloadTemplate(this.registry);
		// A class's first loading, resolved by the VM, pins a virtual thread that
		// contends for the class loader's lock: once per class and JVM, whatever code it
		// is. Each way of waiting runs once before the recording.
		OnVirtualThreads.run(5, (kind) -> waitOneWay(kind, template));
		PinnedEvents pinned = PinnedEvents.during(() -> {
			OnVirtualThreads.run(2_000, (i) -> waitOneWay(i % 5, template));
			// A control: a pinned wait outside Offload is recorded, so the recording does
			// see pinning.
			OnVirtualThreads.run(1, (i) -> parkHoldingTheCarrier());
			return null;
		});
		assertThat(pinned.all()).as("pinned events of the control").isNotEmpty();
		assertThat(pinned.throughOffload()).as("pinned events whose stack passes through Offload").isEmpty();
	}

	/**
	 * One request, waiting as an application would: synchronize, close, the template, a
	 * future, or an event.
	 */
	private void waitOneWay(int kind, OffloadTemplate template) {
		switch (kind) {
			case 0 -> {
				try (OffloadSession session = this.device.openSession()) {
					session.launch(this.hold, LaunchConfig.of(1, 1), GATE);
					session.synchronize();
				}
			}
			case 1 -> {
				OffloadSession session = this.device.openSession();
				session.launch(this.hold, LaunchConfig.of(1, 1), GATE);
				session.close();
			}
			case 2 -> template.execute((session) -> {
				session.launch(this.hold, LaunchConfig.of(1, 1), GATE);
				return null;
			});
			case 3 -> {
				OffloadSession session = this.device.openSession();
				session.launch(this.hold, LaunchConfig.of(1, 1), GATE);
				session.whenDone().join();
				session.closeAsync().join();
			}
			default -> {
				try (OffloadSession session = this.device.openSession()) {
					session.launch(this.hold, LaunchConfig.of(1, 1), GATE);
					session.recordEvent().synchronize();
				}
			}
		}
	}

	private void parkHoldingTheCarrier() {
		CarrierHoldingBackend.holdingCarrier(() -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)));
	}

	private void awaitGate() {
		awaitQuietly(this.gate);
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			if (!latch.await(1, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The latch was not opened within a minute");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void assumeVirtualThreads() {
		assumeTrue(VirtualThreads.isSupported(),
				"Virtual threads need Java 21+; the build runs these tests on the JDK 22+ it finds (README)");
	}

}
