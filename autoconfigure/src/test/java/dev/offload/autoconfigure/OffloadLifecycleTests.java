package dev.offload.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolClosedException;
import dev.offload.StreamPoolStatistics;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link OffloadLifecycle}: shutdown with sessions in flight.
 */
@ExtendWith(OutputCaptureExtension.class)
class OffloadLifecycleTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
		.withPropertyValues("offload.backend=host", "offload.stream-pool.initial-size=1");

	@Test
	void aRegistryOfTheApplicationsOwnShouldWaitAsLongAsItWasBuiltTo() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
			.withPropertyValues("offload.shutdown.await-termination=10m")
			.withBean(DeviceRegistry.class,
					() -> DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
						.awaitTermination(Duration.ofMillis(100))
						.build())
			.run((context) -> {
				OffloadSession open = context.getBean(DeviceRegistry.class).openSession();
				open.streamId();
				// Its 100 ms, not the 10 minutes the shutdown may take in all.
				assertThat(CompletableFuture.runAsync(context::close, (task) -> new Thread(task).start()))
					.succeedsWithin(Duration.ofMinutes(1));
				open.close();
			});
	}

	@Test
	void lifecycleShouldStopAfterTheWebServer() {
		this.contextRunner.run((context) -> {
			OffloadLifecycle lifecycle = context.getBean(OffloadLifecycle.class);
			assertThat(lifecycle.isRunning()).isTrue();
			assertThat(lifecycle.getPhase()).isLessThan(Integer.MAX_VALUE - 2048);
		});
	}

	@Test
	void pauseAndRestartShouldKeepTheRegistryOpen() {
		this.contextRunner.run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			context.pause();
			assertThat(registry.isClosed()).isFalse();
			context.restart();
			try (OffloadSession session = registry.openSession()) {
				session.fill(session.allocate(16), (byte) 1);
			}
			assertThat(registry.isClosed()).isFalse();
		});
	}

	@Test
	void stopAndStartShouldKeepTheRegistryOpenAndCloseShouldCloseIt() {
		this.contextRunner.run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			context.stop();
			assertThat(context.getBean(OffloadLifecycle.class).isRunning()).isFalse();
			context.start();
			try (OffloadSession session = registry.openSession()) {
				session.fill(session.allocate(16), (byte) 1);
			}
			context.close();
			assertThat(registry.isClosed()).isTrue();
		});
	}

	@Test
	void closeWhenSessionInFlightShouldWaitForItAndDestroyTheStreamAfterItCloses(CapturedOutput output) {
		this.contextRunner.withPropertyValues("offload.shutdown.await-termination=1m").run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			BlockingWork work = new BlockingWork(registry.device(0));
			CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
			await().atMost(10, TimeUnit.SECONDS)
				.untilAsserted(() -> assertThatExceptionOfType(StreamPoolClosedException.class)
					.isThrownBy(registry::openSession));
			assertThat(closing).isNotDone();
			assertThat(work.statistics().inUse()).isOne();
			assertThat(work.statistics().destroyed()).isZero();
			assertThat(output).contains("Offload is shutting down: device 0 has 1 session(s) in flight and 1 "
					+ "stream(s) lent; waiting up to 60000 ms for them");
			assertThat(work.finish()).isTrue();
			closing.get(10, TimeUnit.SECONDS);
			assertThat(work.statistics().destroyed()).isOne();
			assertThat(work.statistics().created()).isOne();
			assertThat(registry.isClosed()).isTrue();
			assertThat(output).doesNotContain("still lent");
		});
	}

	@Test
	void closeWhenSessionOutlivesAwaitTerminationShouldLogAndKeepItsStream(CapturedOutput output) {
		this.contextRunner.withPropertyValues("offload.shutdown.await-termination=100ms").run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			BlockingWork work = new BlockingWork(registry.device(0));
			context.close();
			assertThat(output).contains("Device 0: 1 stream(s) still lent and 1 session(s) active after");
			assertThat(work.statistics().inUse()).isOne();
			assertThat(work.statistics().destroyed()).isZero();
			assertThat(work.finish()).isTrue();
			assertThat(work.statistics().destroyed()).isOne();
			registry.backend().close();
		});
	}

	@Test
	void closeWhenAsyncCloseOutlivesTheDrainShouldFailItsFutureAndCompleteFinishedOnes() {
		this.contextRunner.withPropertyValues("offload.shutdown.await-termination=200ms").run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			OffloadSession quick = registry.openSession();
			quick.fill(quick.allocate(16), (byte) 1);
			CompletableFuture<Void> quickEnd = quick.closeAsync();
			BlockingWork work = new BlockingWork(registry.device(0));
			CompletableFuture<Void> heldEnd = work.closeAsync();
			context.close();
			await().atMost(10, TimeUnit.SECONDS).until(quickEnd::isDone);
			assertThat(quickEnd).isNotCompletedExceptionally();
			assertThat(heldEnd).isCompletedExceptionally();
			assertThatExceptionOfType(CompletionException.class).isThrownBy(heldEnd::join)
				.havingCause()
				.isInstanceOf(StreamPoolClosedException.class)
				.withMessageContaining("was shut down before its work finished");
			work.release();
			registry.backend().close();
		});
	}

	@Test
	void closeWhenAsyncCloseEndsWithinTheDrainShouldCompleteItsFutureNormally() {
		this.contextRunner.withPropertyValues("offload.shutdown.await-termination=1m").run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			BlockingWork work = new BlockingWork(registry.device(0));
			CompletableFuture<Void> heldEnd = work.closeAsync();
			CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
			await().atMost(10, TimeUnit.SECONDS)
				.untilAsserted(() -> assertThatExceptionOfType(StreamPoolClosedException.class)
					.isThrownBy(registry::openSession));
			assertThat(closing).isNotDone();
			assertThat(heldEnd).isNotDone();
			work.release();
			closing.get(30, TimeUnit.SECONDS);
			await().atMost(10, TimeUnit.SECONDS).until(heldEnd::isDone);
			assertThat(heldEnd).isNotCompletedExceptionally();
			assertThat(registry.isClosed()).isTrue();
			assertThat(work.statistics().inUse()).isZero();
		});
	}

	@Test
	void registryCloseAfterContextCloseShouldDoNothing() {
		this.contextRunner.run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			registry.openSession().close();
			context.close();
			StreamPoolStatistics stopped = registry.device(0).streamPool().statistics();
			assertThat(registry.isClosed()).isTrue();
			registry.close();
			assertThat(registry.device(0).streamPool().statistics()).isEqualTo(stopped);
		});
	}

	/**
	 * A session whose kernel blocks until {@link #finish()}.
	 */
	static final class BlockingWork {

		final Device device;

		private final CountDownLatch release = new CountDownLatch(1);

		private final AtomicBoolean done = new AtomicBoolean();

		private final OffloadSession session;

		BlockingWork(Device device) throws InterruptedException {
			this.device = device;
			CountDownLatch started = new CountDownLatch(1);
			ModuleDefinition module = ModuleDefinition.builder("blocking").hostKernel("block", List.of(), (thread) -> {
				started.countDown();
				try {
					this.release.await();
					this.done.set(true);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}).build();
			Kernel kernel = device.loadModule(module).kernel("block");
			this.session = device.openSession();
			this.session.launch(kernel, LaunchConfig.of(1, 1));
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		}

		StreamPoolStatistics statistics() {
			return this.device.streamPool().statistics();
		}

		CompletableFuture<Void> closeAsync() {
			return this.session.closeAsync();
		}

		void release() {
			this.release.countDown();
		}

		/**
		 * Lets the kernel end and closes the session, which waits for it.
		 * @return whether the kernel ran to its end
		 */
		boolean finish() {
			this.release.countDown();
			this.session.close();
			return this.done.get();
		}

	}

}
