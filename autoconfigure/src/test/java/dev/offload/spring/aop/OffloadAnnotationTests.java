package dev.offload.spring.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.SessionTimeoutException;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.IllegalSessionStateException;
import dev.offload.template.Offload;
import dev.offload.template.OffloadSessionBinding;
import dev.offload.template.OffloadTemplate;
import dev.offload.template.Propagation;
import dev.offload.test.kernel.Gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link Offload @Offload} through the auto-configured proxies, over a user-defined
 * registry of two host devices.
 */
class OffloadAnnotationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadTemplateAutoConfiguration.class))
		.withUserConfiguration(ServicesConfiguration.class);

	@Test
	void offloadMethodCallingTemplateShouldJoinTheSameSession() {
		run((context) -> {
			List<String> seen = context.getBean(Outer.class).withTemplate();
			assertThat(seen).hasSize(2);
			assertThat(seen.get(1)).isEqualTo(seen.get(0));
		});
	}

	@Test
	void offloadMethodShouldBindASessionOnlyForTheCallAndCloseIt() {
		run((context) -> {
			OffloadSession used = context.getBean(Outer.class).call((session) -> {
				session.streamId();
				return session;
			});
			assertThat(used.isClosed()).isTrue();
		});
	}

	@Test
	void requiredInsideOffloadMethodShouldJoinTheOuterSession() {
		run((context) -> {
			Inner inner = context.getBean(Inner.class);
			context.getBean(Outer.class).call((outer) -> {
				assertThat(inner.required()).isSameAs(outer);
				return null;
			});
		});
	}

	@Test
	void requiresNewInsideOffloadMethodShouldUseItsOwnSessionAndStream() {
		run((context) -> {
			Inner inner = context.getBean(Inner.class);
			context.getBean(Outer.class).call((outer) -> {
				String outerStream = stream(outer);
				OffloadSession own = inner.requiresNew();
				assertThat(own).isNotSameAs(outer);
				assertThat(own.isClosed()).isTrue();
				assertThat(OffloadSessionBinding.currentSession()).containsSame(outer);
				assertThat(inner.requiresNewStream()).isNotEqualTo(outerStream);
				return null;
			});
		});
	}

	@Test
	void mandatoryWithoutSessionShouldThrowAndWithOneShouldJoin() {
		run((context) -> {
			Inner inner = context.getBean(Inner.class);
			assertThatExceptionOfType(IllegalSessionStateException.class).isThrownBy(inner::mandatory)
				.withMessageContaining("MANDATORY");
			context.getBean(Outer.class).call((outer) -> {
				assertThat(inner.mandatory()).isSameAs(outer);
				return null;
			});
		});
	}

	@Test
	void neverInsideOffloadMethodShouldThrowAndWithoutSessionShouldRun() {
		run((context) -> {
			Inner inner = context.getBean(Inner.class);
			assertThat(inner.never()).isEmpty();
			context.getBean(Outer.class).call((outer) -> {
				assertThatExceptionOfType(IllegalSessionStateException.class).isThrownBy(inner::never)
					.withMessageContaining("NEVER");
				return null;
			});
		});
	}

	@Test
	void deviceAndPriorityAttributesShouldBeHonoured() {
		run((context) -> {
			Inner inner = context.getBean(Inner.class);
			assertThat(inner.onDeviceOne().device().id()).isEqualTo(1);
			assertThat(inner.high().priority()).isEqualTo(StreamPriority.HIGH);
		});
	}

	@Test
	void classLevelOffloadShouldAdviseEveryMethod() {
		run((context) -> {
			ClassLevel bean = context.getBean(ClassLevel.class);
			assertThat(bean.first()).isPresent();
			assertThat(bean.second()).isPresent();
			assertThat(bean.toString()).isEqualTo("ClassLevel");
		});
	}

	@Test
	void methodAnnotationShouldWinOverClassAnnotation() {
		run((context) -> {
			ClassLevel bean = context.getBean(ClassLevel.class);
			assertThat(bean.first().orElseThrow().priority()).isEqualTo(StreamPriority.NORMAL);
			assertThat(bean.urgent().orElseThrow().priority()).isEqualTo(StreamPriority.HIGH);
		});
	}

	@Test
	void asyncOffloadMethodShouldOpenItsSessionOnTheExecutorThread() {
		this.contextRunner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			String caller = Thread.currentThread().getName();
			String[] seen = context.getBean(AsyncOffload.class).whereIsMySession().get(30, TimeUnit.SECONDS);
			assertThat(seen[0]).isNotEqualTo(caller);
			assertThat(seen[1]).isEqualTo("bound");
			assertThat(OffloadSessionBinding.currentSession()).isEmpty();
			assertNoStreamLent(context);
		});
	}

	@Test
	void offloadOnInterfaceMethodShouldBeHonoured() {
		run((context) -> assertThat(context.getBean(Contract.class).session()).isPresent());
	}

	@Test
	void selfInvocationShouldNotBeAdvised() {
		run((context) -> assertThat(context.getBean(Inner.class).selfInvoked()).isEmpty());
	}

	@Test
	void checkedExceptionShouldReachTheCallerUnchangedAndLeaveNothingBehind() {
		run((context) -> {
			Inner inner = context.getBean(Inner.class);
			IOException failure = new IOException("disk");
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> inner.fails(failure)).isSameAs(failure);
			assertThat(OffloadSessionBinding.currentSession()).isEmpty();
			assertNoStreamLent(context);
		});
	}

	@Test
	void futureMethodShouldKeepItsSessionUntilTheStageCompletesAndItsWorkIsDone() {
		run((context) -> {
			AsyncWorker worker = context.getBean(AsyncWorker.class);
			Gate gate = Gate.create();
			CompletableFuture<String> stage = new CompletableFuture<>();
			CompletableFuture<String> returned = worker.hold(gate, stage);
			OffloadSession session = worker.lastSession();
			assertThat(returned).isNotSameAs(stage);
			assertThat(OffloadSessionBinding.currentSession()).isEmpty();
			assertThat(session.isClosed()).isFalse();
			assertThat(lent(context)).isEqualTo(1);

			stage.complete("done");
			assertThat(returned).isNotDone();
			assertThat(lent(context)).isEqualTo(1);

			gate.release();
			assertThat(returned.get(30, TimeUnit.SECONDS)).isEqualTo("done");
			assertNoStreamLent(context);
		});
	}

	@Test
	void futureMethodWithATimeoutShouldFailAtTheDeadlineAndGiveTheStreamBackWhenTheWorkEnds() {
		run((context) -> {
			AsyncWorker worker = context.getBean(AsyncWorker.class);
			try (Gate gate = Gate.create()) {
				CompletableFuture<String> stage = new CompletableFuture<>();
				CompletableFuture<String> returned = worker.holdWithin(gate, stage);
				OffloadSession session = worker.lastSession();
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> returned.get(30, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOf(SessionTimeoutException.class)
					.withMessageContaining("session timeout 100 ms");
				assertThat(session.device().streamPool().statistics().sessionTimeouts()).isOne();
				assertThat(lent(context)).isEqualTo(1);
				stage.complete("late");
				gate.release();
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> lent(context) == 0);
			}
		});
	}

	@Test
	void completionStageMethodThatFailsShouldFailWithTheSameException() {
		run((context) -> {
			IllegalStateException failure = new IllegalStateException("stage failed");
			CompletionStage<String> returned = context.getBean(AsyncWorker.class).fail(failure);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> returned.toCompletableFuture().get(30, TimeUnit.SECONDS))
				.satisfies((ex) -> assertThat(ex.getCause()).isSameAs(failure));
			assertNoStreamLent(context);
		});
	}

	private void run(ThrowingContextConsumer test) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			test.accept(context);
			assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		});
	}

	@Test
	void timeoutShouldGiveTheSessionItOpensADeadline() {
		run((context) -> assertThat(context.getBean(Inner.class).bounded().timeout()).isEqualTo(Duration.ofSeconds(2)));
	}

	@Test
	void timeoutThatIsNotADurationShouldFailTheStartupNamingTheMethod() {
		this.contextRunner.withUserConfiguration(BadTimeoutConfiguration.class)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("InvalidOffloadAnnotationException: @Offload on BadTimeout.soon() of bean "
						+ "'badTimeout' is invalid: @Offload timeout 'soon' is not a positive duration"));
	}

	private static int lent(AssertableApplicationContext context) {
		return context.getBean(DeviceRegistry.class).devices().stream().mapToInt((d) -> d.streamPool().inUse()).sum();
	}

	private static void assertNoStreamLent(AssertableApplicationContext context) {
		for (Device device : context.getBean(DeviceRegistry.class).devices()) {
			assertThat(device.streamPool().inUse()).isZero();
			assertThat(device.activeSessions()).isZero();
		}
	}

	private static OffloadSession current() {
		return OffloadSessionBinding.currentSession().orElseThrow();
	}

	private static String stream(OffloadSession session) {
		return "device" + session.device().id() + "-stream" + session.streamId();
	}

	@FunctionalInterface
	interface ThrowingContextConsumer {

		void accept(AssertableApplicationContext context) throws Exception;

	}

	@Configuration(proxyBeanMethods = false)
	static class ServicesConfiguration {

		@Bean
		DeviceRegistry deviceRegistry() {
			return DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
				.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
				.build();
		}

		@Bean
		Inner inner() {
			return new Inner();
		}

		@Bean
		Outer outer(OffloadTemplate template) {
			return new Outer(template);
		}

		@Bean
		AsyncWorker asyncWorker() {
			return new AsyncWorker();
		}

		@Bean
		ClassLevel classLevel() {
			return new ClassLevel();
		}

		@Bean
		Contract contract() {
			return new ContractImpl();
		}

	}

	static class Outer {

		private final OffloadTemplate template;

		Outer(OffloadTemplate template) {
			this.template = template;
		}

		@Offload
		public <T> T call(Function<OffloadSession, T> body) {
			return body.apply(current());
		}

		@Offload
		public List<String> withTemplate() {
			String mine = current().id() + "/" + stream(current());
			String template = this.template.execute((session) -> session.id() + "/" + stream(session));
			return List.of(mine, template);
		}

	}

	static class Inner {

		@Offload
		public OffloadSession required() {
			return current();
		}

		@Offload(propagation = Propagation.REQUIRES_NEW)
		public OffloadSession requiresNew() {
			return current();
		}

		@Offload(propagation = Propagation.REQUIRES_NEW)
		public String requiresNewStream() {
			return stream(current());
		}

		@Offload(propagation = Propagation.MANDATORY)
		public OffloadSession mandatory() {
			return current();
		}

		@Offload(propagation = Propagation.NEVER)
		public Optional<OffloadSession> never() {
			return OffloadSessionBinding.currentSession();
		}

		@Offload(device = 1)
		public OffloadSession onDeviceOne() {
			return current();
		}

		@Offload(priority = StreamPriority.HIGH)
		public OffloadSession high() {
			return current();
		}

		@Offload(timeout = "2s")
		public OffloadSession bounded() {
			return current();
		}

		public Optional<OffloadSession> selfInvoked() {
			return never();
		}

		@Offload
		public void fails(IOException failure) throws IOException {
			current().fill(current().allocate(8), (byte) 1);
			throw failure;
		}

	}

	static class AsyncWorker {

		private final AtomicReference<OffloadSession> session = new AtomicReference<>();

		public OffloadSession lastSession() {
			return this.session.get();
		}

		@Offload
		public CompletableFuture<String> hold(Gate gate, CompletableFuture<String> stage) {
			OffloadSession current = current();
			this.session.set(current);
			gate.launch(current);
			return stage;
		}

		@Offload(timeout = "100ms")
		public CompletableFuture<String> holdWithin(Gate gate, CompletableFuture<String> stage) {
			return hold(gate, stage);
		}

		@Offload
		public CompletionStage<String> fail(RuntimeException failure) {
			current().streamId();
			return CompletableFuture.failedFuture(failure);
		}

	}

	@Offload
	static class ClassLevel {

		public Optional<OffloadSession> first() {
			return OffloadSessionBinding.currentSession();
		}

		public Optional<OffloadSession> second() {
			return OffloadSessionBinding.currentSession();
		}

		@Offload(priority = StreamPriority.HIGH)
		public Optional<OffloadSession> urgent() {
			return OffloadSessionBinding.currentSession();
		}

		@Override
		public String toString() {
			assertThat(OffloadSessionBinding.currentSession()).isEmpty();
			return "ClassLevel";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadTimeoutConfiguration {

		@Bean
		BadTimeout badTimeout() {
			return new BadTimeout();
		}

	}

	static class BadTimeout {

		@Offload(timeout = "soon")
		public void soon() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

		@Bean
		AsyncOffload asyncOffload() {
			return new AsyncOffload();
		}

	}

	static class AsyncOffload {

		@Async
		@Offload
		public CompletableFuture<String[]> whereIsMySession() {
			current().streamId();
			return CompletableFuture.completedFuture(new String[] { Thread.currentThread().getName(), "bound" });
		}

	}

	interface Contract {

		@Offload
		Optional<OffloadSession> session();

	}

	static class ContractImpl implements Contract {

		@Override
		public Optional<OffloadSession> session() {
			return OffloadSessionBinding.currentSession();
		}

	}

}
