package dev.offload.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.StreamEvent;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.Backend;
import dev.offload.test.kernel.TestKernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The behaviour every backend must show, as one suite: a subclass per backend supplies
 * the backend and, for a backend that cannot run host kernels, a kernel that does nothing
 * and a gate (a kernel that runs until the test releases it), so that a new backend
 * proves itself with one subclass. Offload runs it on the host backend everywhere and on
 * CUDA on a GPU. Nothing here measures time: the gate decides what is still running.
 */
public abstract class SessionBehaviourContract {

	/** A bound that only a deadlock reaches; not a timing. */
	private static final long DEADLOCK_BOUND_SECONDS = 120;

	protected DeviceRegistry registry;

	protected Device device;

	/**
	 * A kernel held open until released: how a test keeps one session's work running.
	 */
	protected interface Gate {

		/**
		 * Enqueues the held kernel on a session.
		 * @param session the session
		 */
		void hold(OffloadSession session);

		/**
		 * Lets the held kernel finish.
		 */
		void release();

	}

	/**
	 * Creates the backend under test.
	 * @return a new backend
	 */
	protected abstract Backend createBackend();

	/**
	 * Returns a kernel without parameters that does nothing: {@link TestKernels#NOOP}'s
	 * host implementation unless a backend that runs only compiled kernels overrides it.
	 * @param device the device to load it on
	 * @return the kernel
	 */
	protected Kernel noop(Device device) {
		return device.loadModule(TestKernels.MODULE).kernel("noop");
	}

	/**
	 * Creates a gate on a device: offload-test's {@link dev.offload.test.kernel.Gate}
	 * kernel unless a backend that runs only compiled kernels overrides it.
	 * @param device the device
	 * @return a closed gate
	 */
	protected Gate gate(Device device) {
		dev.offload.test.kernel.Gate gate = dev.offload.test.kernel.Gate.create();
		return new Gate() {

			@Override
			public void hold(OffloadSession session) {
				gate.launch(session);
				try {
					if (!gate.awaitStarted(Duration.ofSeconds(DEADLOCK_BOUND_SECONDS))) {
						throw new IllegalStateException(
								gate + " did not start within " + DEADLOCK_BOUND_SECONDS + " s");
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting for " + gate + " to start", ex);
				}
			}

			@Override
			public void release() {
				gate.close();
			}

		};
	}

	/**
	 * Returns the id of the device the suite runs on; a backend of several devices runs
	 * it once per device.
	 * @return the device's id, 0 unless overridden
	 */
	protected int deviceId() {
		return 0;
	}

	/**
	 * Starts a registry over the backend under test, on the device of
	 * {@link #deviceId()}.
	 */
	@BeforeEach
	protected void openRegistry() {
		this.registry = DeviceRegistry.builder(createBackend())
			.deviceIds(List.of(deviceId()))
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(8))
			.build();
		this.device = this.registry.device(deviceId());
		// Load every module before any gate holds a kernel: on CUDA, loading a module can
		// wait for running kernels (seen on the H200: the first version of this suite
		// loaded the no-op kernel while a spin kernel was held, and hung until the spin
		// kernel's safety limit).
		noop(this.device);
	}

	/**
	 * Closes the registry and its backend.
	 */
	@AfterEach
	protected void closeRegistry() {
		this.registry.close(Duration.ofSeconds(30));
	}

	private void runNoop() {
		try (OffloadSession session = this.device.openSession()) {
			session.launch(noop(this.device), LaunchConfig.of(1, 1));
			session.synchronize();
		}
	}

	@Test
	void synchronizeShouldWaitOnlyForThisSessionsWork() {
		Gate gate = gate(this.device);
		OffloadSession held = this.device.openSession();
		gate.hold(held);
		StreamEvent heldDone = held.recordEvent();
		try {
			runNoop();
			assertThat(heldDone.isComplete()).isFalse();
		}
		finally {
			gate.release();
		}
		held.close();
		assertThat(heldDone.session().isClosed()).isTrue();
	}

	@Test
	void lightSessionsShouldAllCompleteWhileAHeavySessionRuns() throws Exception {
		Gate gate = gate(this.device);
		OffloadSession heavy = this.device.openSession();
		gate.hold(heavy);
		StreamEvent heavyDone = heavy.recordEvent();
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> lights = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				lights.add(executor.submit(() -> {
					for (int i = 0; i < 25; i++) {
						runNoop();
					}
				}));
			}
			for (Future<?> light : lights) {
				light.get(DEADLOCK_BOUND_SECONDS, TimeUnit.SECONDS);
			}
			// All 200 light sessions synchronized and closed; the heavy one is still held
			// by its gate.
			assertThat(heavyDone.isComplete()).isFalse();
		}
		finally {
			gate.release();
			executor.shutdownNow();
		}
		heavy.close();
		assertThat(this.device.streamPool().statistics().borrows()).isGreaterThanOrEqualTo(201);
	}

	@Test
	void closeAsyncShouldCompleteOnlyAfterTheWorkAndReturnTheStream() throws Exception {
		Gate gate = gate(this.device);
		OffloadSession session = this.device.openSession();
		gate.hold(session);
		CompletableFuture<Void> closed = session.closeAsync();
		try {
			runNoop();
			assertThat(closed).isNotDone();
			assertThat(this.device.streamPool().inUse()).isEqualTo(1);
		}
		finally {
			gate.release();
		}
		closed.get(DEADLOCK_BOUND_SECONDS, TimeUnit.SECONDS);
		assertThat(this.device.streamPool().inUse()).isZero();
		assertThat(this.device.activeSessions()).isZero();
	}

	@Test
	void waitForShouldHoldBackTheWaitingSessionOnly() {
		Gate gate = gate(this.device);
		OffloadSession producer = this.device.openSession();
		OffloadSession consumer = this.device.openSession();
		try {
			gate.hold(producer);
			StreamEvent produced = producer.recordEvent();
			consumer.waitFor(produced);
			consumer.launch(noop(this.device), LaunchConfig.of(1, 1));
			StreamEvent consumed = consumer.recordEvent();
			runNoop();
			assertThat(consumed.isComplete()).isFalse();
			gate.release();
			consumer.synchronize();
			assertThat(produced.isComplete()).isTrue();
			assertThat(consumed.isComplete()).isTrue();
		}
		finally {
			gate.release();
			producer.close();
			consumer.close();
		}
	}

	@Test
	void wrongArgumentsShouldBeRejectedBeforeAnythingIsEnqueued() {
		try (OffloadSession session = this.device.openSession()) {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.launch(noop(this.device), LaunchConfig.of(1, 1), 42))
				.withMessageContaining("takes 0 arguments");
			assertThat(session.hasStream()).isFalse();
		}
	}

	@Test
	void manySessionsShouldLeaveThePoolConsistent() {
		for (int i = 0; i < 1000; i++) {
			if (i % 2 == 0) {
				runNoop();
			}
			else {
				OffloadSession session = this.device.openSession();
				session.launch(noop(this.device), LaunchConfig.of(1, 1));
				session.closeAsync().join();
			}
		}
		StreamPoolStatistics stats = this.device.streamPool().statistics();
		assertThat(stats.borrows()).isEqualTo(1000);
		assertThat(stats.inUse()).isZero();
		assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.idle() + stats.inUse());
		assertThat(stats.discarded()).isZero();
		assertThat(this.device.activeSessions()).isZero();
	}

}
