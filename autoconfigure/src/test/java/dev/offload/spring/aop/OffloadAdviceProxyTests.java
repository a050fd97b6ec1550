package dev.offload.spring.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.backend.host.HostBackend;
import dev.offload.template.Batched;
import dev.offload.template.Offload;
import dev.offload.template.OffloadSessionBinding;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Offload} and {@code @Batched} advice on beans as Spring proxies them: through
 * interfaces (JDK proxies) as well as classes, on beans already behind a proxy, with
 * generic and subclassed stage types, meta-annotations and tenants, and the startup
 * checks of each annotation's attributes.
 */
class OffloadAdviceProxyTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadTemplateAutoConfiguration.class))
		.withUserConfiguration(RegistryConfiguration.class);

	// @Batched on a bean proxied through its interface
	// (spring.aop.proxy-target-class=false, documented as supported).
	@Test
	void batchedThroughInterfaceProxyShouldServeTheCall() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(Pricer.class, SquarePricer::new)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Pricer pricer = context.getBean(Pricer.class);
				assertThat(pricer.getClass().getName()).contains("$Proxy");
				assertThat(pricer.price(2.0).get(10, TimeUnit.SECONDS)).isEqualTo(4.0);
			});
	}

	// A @Batched timeout that is no duration should fail startup, as @Offload's does
	// and as "The shapes are checked at startup" promises.
	@Test
	void batchedTimeoutThatIsNotADurationShouldFailStartup() {
		this.contextRunner.withBean(BadBatchedTimeout.class, BadBatchedTimeout::new)
			.run((context) -> assertThat(context).hasFailed());
	}

	// @Batched(maxBatchSize) is checked at startup against the configured
	// offload.batching.* policy.
	@Test
	void batchedMaxBatchSizeBelowTheConfiguredPreferredSizesShouldFailStartup() {
		this.contextRunner.withPropertyValues("offload.batching.preferred-batch-sizes=64")
			.withBean(SmallBatch.class, SmallBatch::new)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("preferredBatchSizes must be from 1 to maxBatchSize (16)"));
	}

	// An @Offload method returning a CompletableFuture subclass keeps its session
	// until the stage completes, and its caller gets the stage it returned.
	@Test
	void offloadMethodReturningACompletableFutureSubclassShouldKeepItsSession() {
		this.contextRunner.withBean(SubclassFuture.class, SubclassFuture::new).run((context) -> {
			assertThat(context).hasNotFailed();
			SubclassFuture bean = context.getBean(SubclassFuture.class);
			MyFuture<String> stage = new MyFuture<>();
			assertThat(bean.hold(stage)).isSameAs(stage);
			OffloadSession session = bean.last();
			assertThat(session).isNotNull();
			assertThat(session.isClosed()).as("session closed before its stage completed").isFalse();
			stage.complete("x");
			org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(session::isClosed);
		});
	}

	// Through an interface proxy, a method whose interface return type is a type
	// variable bound to CompletableFuture.
	@Test
	void genericInterfaceMethodReturningAFutureShouldKeepItsSessionThroughInterfaceProxy() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withUserConfiguration(GenericConfiguration.class)
			.run(OffloadAdviceProxyTests::assertHandlerKeepsSessionUntilStageCompletes);
	}

	private static void assertHandlerKeepsSessionUntilStageCompletes(AssertableApplicationContext context)
			throws Exception {
		assertThat(context).hasNotFailed();
		@SuppressWarnings("unchecked")
		Handler<CompletableFuture<String>> handler = context.getBean(Handler.class);
		CompletableFuture<String> stage = new CompletableFuture<>();
		CompletableFuture<String> returned = handler.handle(stage);
		OffloadSession session = ((FutureHandler) handlerTarget(context)).last;
		assertThat(session.isClosed()).as("session closed before its stage completed").isFalse();
		stage.complete("x");
		assertThat(returned.get(10, TimeUnit.SECONDS)).isEqualTo("x");
	}

	// Meta-annotation carrying @Offload(device = 1).
	@Test
	void metaAnnotatedMethodShouldOpenOnTheMetaAnnotationsDevice() {
		this.contextRunner.withBean(Meta.class, Meta::new).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(Meta.class).onOne()).isEqualTo(1);
		});
	}

	// A bean already behind a JDK proxy (e.g. @Transactional with
	// spring.aop.proxy-target-class=false) whose @Offload is on the implementation: the
	// startup checks (timeout format, device exists) apply as to any bean.
	@Test
	void badTimeoutOnABeanAlreadyBehindAJdkProxyShouldFailStartup() {
		this.contextRunner.withUserConfiguration(PreProxiedConfiguration.class)
			.withBean(Svc.class, BadTimeoutSvc::new)
			.run((context) -> assertThat(context).hasFailed());
	}

	@Test
	void unknownDeviceOnABeanAlreadyBehindAJdkProxyShouldFailStartup() {
		this.contextRunner.withUserConfiguration(PreProxiedConfiguration.class)
			.withBean(Svc.class, BadDeviceSvc::new)
			.run((context) -> assertThat(context).hasFailed());
	}

	// @Offload(tenant) wins over the TenantResolver bean; the resolver is asked
	// otherwise.
	@Test
	void tenantOfTheAnnotationShouldWinOverTheResolversAndTheResolverShouldServeTheRest() {
		this.contextRunner.withUserConfiguration(TenantConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			Tenanted bean = context.getBean(Tenanted.class);
			assertThat(bean.named()).isEqualTo("acme");
			assertThat(bean.resolved()).isEqualTo("resolved");
		});
	}

	// After the registry closed, an @Offload call fails with StreamPoolClosedException.
	@Test
	void offloadCallAfterTheRegistryClosedShouldFailWithStreamPoolClosed() {
		this.contextRunner.withBean(Meta.class, Meta::new).run((context) -> {
			context.getBean(DeviceRegistry.class).close();
			org.assertj.core.api.Assertions.assertThatExceptionOfType(dev.offload.StreamPoolClosedException.class)
				.isThrownBy(() -> context.getBean(Meta.class).onOne());
		});
	}

	public interface Svc {

		int work();

	}

	static class BadTimeoutSvc implements Svc {

		@Offload(timeout = "soon")
		@Override
		public int work() {
			return 1;
		}

	}

	static class BadDeviceSvc implements Svc {

		@Offload(device = 7)
		@Override
		public int work() {
			return 1;
		}

	}

	/**
	 * Stands for an infrastructure auto-proxy creator (HIGHEST_PRECEDENCE) with JDK
	 * proxies.
	 */
	static class JdkProxyingPostProcessor implements org.springframework.beans.factory.config.BeanPostProcessor,
			org.springframework.core.PriorityOrdered {

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof Svc) {
				org.springframework.aop.framework.ProxyFactory factory = new org.springframework.aop.framework.ProxyFactory(
						bean);
				factory.addInterface(Svc.class);
				factory.addAdvice((org.aopalliance.intercept.MethodInterceptor) (invocation) -> invocation.proceed());
				return factory.getProxy();
			}
			return bean;
		}

		@Override
		public int getOrder() {
			return HIGHEST_PRECEDENCE;
		}

	}

	/** Puts every Svc bean behind a JDK proxy before Offload's post-processor sees it. */
	@Configuration(proxyBeanMethods = false)
	static class PreProxiedConfiguration {

		@Bean
		static JdkProxyingPostProcessor jdkProxyingPostProcessor() {
			return new JdkProxyingPostProcessor();
		}

	}

	static class Tenanted {

		@Offload(tenant = "acme")
		public String named() {
			return OffloadSessionBinding.currentSession().orElseThrow().tenant();
		}

		@Offload
		public String resolved() {
			return OffloadSessionBinding.currentSession().orElseThrow().tenant();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantConfiguration {

		@Bean
		dev.offload.template.TenantResolver tenantResolver() {
			return () -> "resolved";
		}

		@Bean
		Tenanted tenanted() {
			return new Tenanted();
		}

	}

	@Test
	void beanAlreadyBehindAJdkProxyShouldStillBeAdvised() {
		this.contextRunner.withUserConfiguration(PreProxiedConfiguration.class)
			.withBean(Svc.class, GoodSvc::new)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(Svc.class).work()).isEqualTo(1);
			});
	}

	static class GoodSvc implements Svc {

		@Offload(device = 1)
		@Override
		public int work() {
			return OffloadSessionBinding.currentSession().map((s) -> s.device().id()).orElse(-99);
		}

	}

	// A zero delay is valid for @Batched(maxDelay) as for BatchPolicy and
	// offload.batching.max-delay ("0 dispatches what is queued at once").
	@Test
	void batchedZeroMaxDelayShouldBeAccepted() {
		this.contextRunner.withBean(ZeroDelay.class, ZeroDelay::new).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(ZeroDelay.class).twice(4).get(10, TimeUnit.SECONDS)).isEqualTo(8);
		});
	}

	static class ZeroDelay {

		@Batched(batchMethod = "twiceAll", maxDelay = "0ms")
		public CompletableFuture<Integer> twice(Integer value) {
			throw new UnsupportedOperationException();
		}

		public List<Integer> twiceAll(List<Integer> values) {
			return values.stream().map((v) -> v * 2).toList();
		}

	}

	// The same generic method through the default class-based proxy.
	@Test
	void genericInterfaceMethodReturningAFutureShouldKeepItsSessionThroughClassProxy() {
		this.contextRunner.withUserConfiguration(GenericConfiguration.class)
			.run(OffloadAdviceProxyTests::assertHandlerKeepsSessionUntilStageCompletes);
	}

	private static Object handlerTarget(org.springframework.context.ApplicationContext context) throws Exception {
		return ((org.springframework.aop.framework.Advised) context.getBean(Handler.class)).getTargetSource()
			.getTarget();
	}

	@Configuration(proxyBeanMethods = false)
	static class RegistryConfiguration {

		@Bean
		DeviceRegistry deviceRegistry() {
			return DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
				.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
				.build();
		}

	}

	public interface Pricer {

		@Batched(batchMethod = "priceAll", maxDelay = "1ms")
		CompletableFuture<Double> price(Double value);

		List<Double> priceAll(List<Double> values);

	}

	static class SquarePricer implements Pricer {

		@Override
		public CompletableFuture<Double> price(Double value) {
			throw new UnsupportedOperationException("batched");
		}

		@Override
		public List<Double> priceAll(List<Double> values) {
			List<Double> out = new ArrayList<>();
			values.forEach((v) -> out.add(v * v));
			return out;
		}

	}

	static class BadBatchedTimeout {

		@Batched(batchMethod = "all", timeout = "soon")
		public CompletableFuture<Integer> one(Integer value) {
			throw new UnsupportedOperationException();
		}

		public List<Integer> all(List<Integer> values) {
			return values;
		}

	}

	static class SmallBatch {

		@Batched(batchMethod = "twiceAll", maxBatchSize = 16, maxDelay = "1ms")
		public CompletableFuture<Integer> twice(Integer value) {
			throw new UnsupportedOperationException();
		}

		public List<Integer> twiceAll(List<Integer> values) {
			return values.stream().map((v) -> v * 2).toList();
		}

	}

	static class MyFuture<T> extends CompletableFuture<T> {

	}

	static class SubclassFuture {

		volatile OffloadSession last;

		public OffloadSession last() {
			return this.last;
		}

		@Offload
		public MyFuture<String> hold(MyFuture<String> stage) {
			this.last = OffloadSessionBinding.currentSession().orElseThrow();
			return stage;
		}

	}

	public interface Handler<R> {

		R handle(CompletableFuture<String> stage);

	}

	static class FutureHandler implements Handler<CompletableFuture<String>> {

		volatile OffloadSession last;

		@Offload
		@Override
		public CompletableFuture<String> handle(CompletableFuture<String> stage) {
			this.last = OffloadSessionBinding.currentSession().orElseThrow();
			return stage;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class GenericConfiguration {

		@Bean
		Handler<CompletableFuture<String>> handler() {
			return new FutureHandler();
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Offload(device = 1)
	@interface OnDeviceOne {

	}

	static class Meta {

		@OnDeviceOne
		public int onOne() {
			return OffloadSessionBinding.currentSession().map((s) -> s.device().id()).orElse(-99);
		}

	}

}
