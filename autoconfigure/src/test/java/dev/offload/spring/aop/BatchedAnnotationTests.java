package dev.offload.spring.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.DeviceRegistry;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.Batched;
import dev.offload.template.Batcher;
import dev.offload.template.Offload;
import dev.offload.template.OffloadSessionBinding;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Batched @Batched} methods in an application context: calls gathered into calls
 * of the batch method, through the proxy, and wrong shapes refused at startup.
 */
class BatchedAnnotationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadTemplateAutoConfiguration.class))
		.withUserConfiguration(RegistryConfiguration.class);

	@Test
	void callsWhenConcurrentShouldBeServedByOneCallOfTheBatchMethod() {
		this.contextRunner.withUserConfiguration(SquaresConfiguration.class).run((context) -> {
			Squares squares = context.getBean(Squares.class);
			List<CompletableFuture<Integer>> results = new ArrayList<>();
			for (int i = 1; i <= 4; i++) {
				results.add(squares.square(i));
			}
			List<Integer> values = new ArrayList<>();
			for (CompletableFuture<Integer> result : results) {
				values.add(result.get(10, TimeUnit.SECONDS));
			}
			assertThat(values).containsExactly(1, 4, 9, 16);
			assertThat(squares.batches()).containsExactly(List.of(1, 2, 3, 4));
			assertThat(squares.inSession()).containsExactly(true);
			assertThat(context.getBean(OffloadTemplate.class).batchers()).singleElement()
				.satisfies((batcher) -> assertThat(batcher.name()).isEqualTo("BatchedAnnotationTests.Squares.square"));
		});
	}

	@Test
	void twoBeansOfOneClassShouldEachHaveTheirOwnBatcherAndName() {
		this.contextRunner.withUserConfiguration(TwoSquaresConfiguration.class).run((context) -> {
			Squares first = context.getBean("first", Squares.class);
			Squares second = context.getBean("second", Squares.class);
			List<CompletableFuture<Integer>> results = new ArrayList<>();
			for (int i = 1; i <= 4; i++) {
				results.add(first.square(i));
				results.add(second.square(10 + i));
			}
			for (CompletableFuture<Integer> result : results) {
				result.get(10, TimeUnit.SECONDS);
			}
			assertThat(first.batches()).containsExactly(List.of(1, 2, 3, 4));
			assertThat(second.batches()).containsExactly(List.of(11, 12, 13, 14));
			assertThat(context.getBean(OffloadTemplate.class).batchers()).extracting(Batcher::name)
				.containsExactly("BatchedAnnotationTests.Squares.square", "BatchedAnnotationTests.Squares.square#2");
		});
	}

	@Test
	void callsWhenTheBatchMethodThrowsShouldEachFailWithItsException() {
		this.contextRunner.withUserConfiguration(FailingConfiguration.class).run((context) -> {
			Failing failing = context.getBean(Failing.class);
			CompletableFuture<Integer> first = failing.square(1);
			CompletableFuture<Integer> second = failing.square(2);
			for (CompletableFuture<Integer> result : List.of(first, second)) {
				assertThat(result).failsWithin(10, TimeUnit.SECONDS)
					.withThrowableOfType(ExecutionException.class)
					.withCauseInstanceOf(IllegalStateException.class)
					.withMessageContaining("no squares today");
			}
		});
	}

	@Test
	void contextWhenClosedShouldCloseTheBatchers() {
		OffloadTemplate[] template = new OffloadTemplate[1];
		this.contextRunner.withUserConfiguration(SquaresConfiguration.class).run((context) -> {
			template[0] = context.getBean(OffloadTemplate.class);
			context.getBean(Squares.class).square(3);
			assertThat(template[0].batchers()).hasSize(1);
		});
		assertThat(template[0].batchers()).isEmpty();
	}

	@Test
	void startupWhenBatchMethodIsMissingShouldFail() {
		this.contextRunner.withUserConfiguration(MissingBatchMethodConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("has no method 'missing(List)'"));
	}

	@Test
	void startupWhenMethodDoesNotReturnAFutureShouldFail() {
		this.contextRunner.withUserConfiguration(NotAFutureConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("must take one item and return a CompletableFuture"));
	}

	@Configuration(proxyBeanMethods = false)
	static class RegistryConfiguration {

		@Bean
		DeviceRegistry deviceRegistry() {
			return DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build()).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SquaresConfiguration {

		@Bean
		Squares squares() {
			return new Squares();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoSquaresConfiguration {

		@Bean
		Squares first() {
			return new Squares();
		}

		@Bean
		Squares second() {
			return new Squares();
		}

	}

	static class Squares {

		final List<List<Integer>> batches = new CopyOnWriteArrayList<>();

		final List<Boolean> inSession = new CopyOnWriteArrayList<>();

		// Through the proxy: a CGLIB proxy's own fields are not the target's.
		List<List<Integer>> batches() {
			return this.batches;
		}

		List<Boolean> inSession() {
			return this.inSession;
		}

		@Batched(batchMethod = "squareAll", maxBatchSize = 4, maxDelay = "1h")
		public CompletableFuture<Integer> square(Integer value) {
			throw new UnsupportedOperationException("@Batched: calls go to squareAll");
		}

		@Offload
		public List<Integer> squareAll(List<Integer> values) {
			this.batches.add(List.copyOf(values));
			this.inSession.add(OffloadSessionBinding.currentSession().isPresent());
			return values.stream().map((value) -> value * value).toList();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FailingConfiguration {

		@Bean
		Failing failing() {
			return new Failing();
		}

	}

	static class Failing {

		@Batched(batchMethod = "squareAll", maxBatchSize = 2, maxDelay = "1h")
		public CompletableFuture<Integer> square(Integer value) {
			throw new UnsupportedOperationException("@Batched: calls go to squareAll");
		}

		public List<Integer> squareAll(List<Integer> values) {
			throw new IllegalStateException("no squares today");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MissingBatchMethodConfiguration {

		@Bean
		MissingBatchMethod missingBatchMethod() {
			return new MissingBatchMethod();
		}

	}

	static class MissingBatchMethod {

		@Batched(batchMethod = "missing")
		public CompletableFuture<Integer> square(Integer value) {
			return null;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NotAFutureConfiguration {

		@Bean
		NotAFuture notAFuture() {
			return new NotAFuture();
		}

	}

	static class NotAFuture {

		@Batched(batchMethod = "squareAll")
		public Integer square(Integer value) {
			return value;
		}

		public List<Integer> squareAll(List<Integer> values) {
			return values;
		}

	}

}
