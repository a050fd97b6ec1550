package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.StreamPoolConfig;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread that waits for the future of {@code runAsync} or {@code submit} gets its
 * result without the completion executor: it reads the outputs itself once the work is
 * done, with and without a session deadline. The executor here runs nothing until the
 * test ends, so a result that needed it would never come.
 */
class AsyncJoinTests {

	private final LinkedBlockingQueue<Runnable> held = new LinkedBlockingQueue<>();

	private volatile boolean released;

	// Holds its tasks until the test ends, then runs them and those that come later.
	private final Executor completions = (task) -> {
		if (this.released) {
			task.run();
		}
		else {
			this.held.add(task);
		}
	};

	private DeviceRegistry registry;

	private void start(Duration sessionTimeout) {
		this.registry = DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.completionExecutor(this.completions)
			.sessionTimeout(sessionTimeout)
			.build();
	}

	@AfterEach
	void tearDown() {
		this.released = true;
		for (Runnable task = this.held.poll(); task != null; task = this.held.poll()) {
			task.run();
		}
		Device device = this.registry.device(0);
		this.registry.close(Duration.ofSeconds(30));
		assertThat(device.activeSessions()).isZero();
	}

	@Test
	void runAsyncJoinShouldReadTheOutputsOnTheJoiningThread() throws Exception {
		start(null);
		assertThat(onAnotherThread(() -> scaleAsyncJoined(new OffloadTemplate(this.registry)))).containsExactly(2, 4,
				6);
	}

	@Test
	void runAsyncJoinWithASessionDeadlineShouldReadTheOutputsOnTheJoiningThread() throws Exception {
		start(Duration.ofMinutes(10));
		assertThat(onAnotherThread(() -> scaleAsyncJoined(new OffloadTemplate(this.registry)))).containsExactly(2, 4,
				6);
	}

	@Test
	void submitJoinShouldReturnTheCallbacksValueOnTheJoiningThread() throws Exception {
		start(null);
		OffloadTemplate template = new OffloadTemplate(this.registry);
		String value = onAnotherThread(() -> {
			try {
				return template.submit((session) -> {
					session.fill(session.allocate(64), (byte) 1);
					return "filled";
				}).get();
			}
			catch (InterruptedException | ExecutionException ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(value).isEqualTo("filled");
		assertThat(this.registry.device(0).streamPool().inUse()).isZero();
	}

	/**
	 * Runs {@code work} on a thread of its own and returns its value, or fails if it has
	 * none after 30 seconds.
	 */
	private static <T> T onAnotherThread(Supplier<T> work) throws InterruptedException {
		AtomicReference<T> value = new AtomicReference<>();
		Thread thread = new Thread(() -> value.set(work.get()), "joiner");
		thread.setDaemon(true);
		thread.start();
		thread.join(TimeUnit.SECONDS.toMillis(30));
		assertThat(value.get()).as("the joiner's value, without the completion executor").isNotNull();
		return value.get();
	}

	private float[] scaleAsyncJoined(OffloadTemplate template) {
		float[] x = { 1, 2, 3 };
		return TemplateTestKernels.scaleAsync(template, x, 2f).join().floats(0);
	}

}
