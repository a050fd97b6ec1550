package dev.offload.spring.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.template.BatcherClosedException;
import dev.offload.template.Batched;
import dev.offload.template.Offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link Batched @Batched} calls queued when the application context closes: the batchers
 * stop taking calls and dispatch their queues while the stream pools still lend, then the
 * registry closes; a call after the close is refused at once.
 */
class BatchedShutdownTests {

	/**
	 * Generous: only "waits for ever" or a failed call fails it, never a slow machine.
	 */
	private static final Duration FOR_EVER = Duration.ofSeconds(30);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadTemplateAutoConfiguration.class))
		.withPropertyValues("offload.backend=host", "offload.stream-pool.initial-size=1",
				"offload.shutdown.await-termination=1m")
		.withUserConfiguration(SquaresConfiguration.class);

	@Test
	void closeWithCallsQueuedShouldServeEveryCallBeforeThePoolsStopLending() {
		this.contextRunner.run((context) -> {
			Squares squares = context.getBean(Squares.class);
			List<CompletableFuture<Integer>> results = new ArrayList<>();
			for (int i = 1; i <= 3; i++) {
				// A batch of 100 or an hour's delay: only the shutdown dispatches them.
				results.add(squares.square(i));
			}
			context.close();
			await().atMost(FOR_EVER).until(() -> results.stream().allMatch(CompletableFuture::isDone));
			assertThat(results).extracting(CompletableFuture::join).containsExactly(1, 4, 9);
		});
	}

	@Test
	void closeWhileABatchRunsShouldLetItEndAndServeTheCallsQueuedBehindIt() {
		this.contextRunner.run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			Hold hold = context.getBean(Hold.class);
			Squares squares = context.getBean(Squares.class);
			List<CompletableFuture<Integer>> results = new ArrayList<>();
			results.add(squares.squareOneByOne(1));
			assertThat(hold.entered.await(30, TimeUnit.SECONDS)).isTrue();
			for (int i = 2; i <= 4; i++) {
				results.add(squares.squareOneByOne(i));
			}
			Thread closer = new Thread(context::close, "context-closer");
			closer.start();
			await().atMost(FOR_EVER).until(registry::isClosed);
			hold.release.countDown();
			await().atMost(FOR_EVER).until(() -> results.stream().allMatch(CompletableFuture::isDone));
			assertThat(results).extracting(CompletableFuture::join).containsExactly(1, 4, 9, 16);
			closer.join(TimeUnit.SECONDS.toMillis(30));
			assertThat(closer.isAlive()).isFalse();
		});
	}

	@Test
	void callAfterCloseShouldBeRefusedAtOnceNamingTheBatcher() {
		Squares[] squares = new Squares[1];
		List<CompletableFuture<Integer>> queued = new ArrayList<>();
		this.contextRunner.run((context) -> {
			squares[0] = context.getBean(Squares.class);
			queued.add(squares[0].square(2));
		});
		assertThat(queued.get(0)).succeedsWithin(FOR_EVER).isEqualTo(4);
		assertThatExceptionOfType(BatcherClosedException.class).isThrownBy(() -> squares[0].square(3))
			.withMessageContaining("Squares.square")
			.withMessageContaining("registry is shutting down");
	}

	@Configuration(proxyBeanMethods = false)
	static class SquaresConfiguration {

		@Bean
		Hold hold() {
			return new Hold();
		}

		@Bean
		Squares squares(Hold hold) {
			return new Squares(hold);
		}

	}

	/** Holds the first batch of {@link Squares#squareOneByOne} until released. */
	static class Hold {

		final AtomicBoolean first = new AtomicBoolean(true);

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

	}

	static class Squares {

		private final Hold hold;

		Squares(Hold hold) {
			this.hold = hold;
		}

		@Batched(batchMethod = "squareAll", maxBatchSize = 100, maxDelay = "1h")
		public CompletableFuture<Integer> square(Integer value) {
			throw new UnsupportedOperationException("@Batched: calls go to squareAll");
		}

		@Batched(batchMethod = "squareHeld", maxBatchSize = 1, maxDelay = "1h")
		public CompletableFuture<Integer> squareOneByOne(Integer value) {
			throw new UnsupportedOperationException("@Batched: calls go to squareHeld");
		}

		@Offload
		public List<Integer> squareAll(List<Integer> values) {
			return values.stream().map((value) -> value * value).toList();
		}

		@Offload
		public List<Integer> squareHeld(List<Integer> values) throws InterruptedException {
			if (this.hold.first.compareAndSet(true, false)) {
				this.hold.entered.countDown();
				this.hold.release.await(60, TimeUnit.SECONDS);
			}
			return values.stream().map((value) -> value * value).toList();
		}

	}

}
