package dev.offload.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.offload.BackendException;
import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;
import dev.offload.StreamPools;
import dev.offload.autoconfigure.health.OffloadHealthContributorAutoConfiguration;
import dev.offload.autoconfigure.pool.OffloadStreamPoolsAutoConfiguration;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.backend.host.HostBackend;
import dev.offload.spring.actuate.health.OffloadHealthIndicator;
import dev.offload.template.Offload;
import dev.offload.template.OffloadSessionBinding;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The auto-configuration over several emulated devices: a pool bean each,
 * {@code offload.devices} choosing a subset, health naming a failed device while the
 * others serve, and {@code @Offload} methods nesting across devices.
 */
class MultiDeviceAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadStreamPoolsAutoConfiguration.class,
						OffloadHealthContributorAutoConfiguration.class, OffloadTemplateAutoConfiguration.class))
		.withPropertyValues("offload.backend=host", "offload.host.device-count=4",
				"offload.stream-pool.initial-size=2");

	@Test
	void discoveryWhenFourDevicesShouldDefineAPoolBeanEachAndStreamPoolsOverThem() {
		this.contextRunner.run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			StreamPools pools = context.getBean(StreamPools.class);
			assertThat(registry.ids()).containsExactly(0, 1, 2, 3);
			assertThat(pools.ids()).containsExactly(0, 1, 2, 3);
			assertThat(context).getBeanNames(StreamPool.class)
				.containsExactlyInAnyOrder("streamPool0", "streamPool1", "streamPool2", "streamPool3");
			for (int id = 0; id < 4; id++) {
				assertThat(context.getBean("streamPool" + id)).isSameAs(pools.get(id))
					.isSameAs(registry.device(id).streamPool());
			}
		});
	}

	@Test
	void devicesWhenASubsetIsListedShouldRegisterAndPlaceOnThoseOnly() {
		this.contextRunner.withPropertyValues("offload.devices=1,3").run((context) -> {
			DeviceRegistry registry = context.getBean(DeviceRegistry.class);
			assertThat(registry.ids()).containsExactly(1, 3);
			assertThat(context.getBean(StreamPools.class).ids()).containsExactly(1, 3);
			assertThat(context).getBeanNames(StreamPool.class).containsExactlyInAnyOrder("streamPool1", "streamPool3");
			List<OffloadSession> held = new ArrayList<>();
			try {
				for (int i = 0; i < 4; i++) {
					held.add(registry.openSession());
				}
				assertThat(held).extracting((session) -> session.device().id())
					.containsOnly(1, 3)
					.containsExactlyInAnyOrder(1, 1, 3, 3);
			}
			finally {
				held.forEach(OffloadSession::close);
			}
			assertThat(context.getBean(OffloadHealthIndicator.class).health().getDetails().get("devices"))
				.asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsOnlyKeys("1", "3");
		});
	}

	@Test
	void healthWhenOneDeviceHasFailedShouldBeDownNamingItWhileTheOthersServe() {
		this.contextRunner
			.withBean(FaultInjectingBackend.class,
					() -> FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(4).build()))
			.run((context) -> {
				DeviceRegistry registry = context.getBean(DeviceRegistry.class);
				context.getBean(FaultInjectingBackend.class).failDevice(2, "an illegal address, injected");
				// The registry sees the sticky error on the device's next call.
				assertThatExceptionOfType(BackendException.class).isThrownBy(() -> registry.device(2).allocate(16));
				Health health = context.getBean(OffloadHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				@SuppressWarnings("unchecked")
				Map<String, Map<String, Object>> devices = (Map<String, Map<String, Object>>) health.getDetails()
					.get("devices");
				assertThat(devices.get("2")).containsEntry("status", "DOWN")
					.hasEntrySatisfying("error", (error) -> assertThat(error.toString()).contains("injected"));
				for (String id : List.of("0", "1", "3")) {
					assertThat(devices.get(id)).containsEntry("status", "UP");
				}
				assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(() -> registry.openSession(2));
				List<OffloadSession> held = new ArrayList<>();
				try {
					for (int i = 0; i < 6; i++) {
						held.add(registry.openSession());
					}
					assertThat(held).extracting((session) -> session.device().id())
						.containsExactlyInAnyOrder(0, 0, 1, 1, 3, 3);
					for (OffloadSession session : held) {
						session.fill(session.allocate(64), (byte) 7);
						session.synchronize();
					}
				}
				finally {
					held.forEach(OffloadSession::close);
				}
			});
	}

	@Test
	void offloadMethodsWhenNestedOnDifferentDevicesShouldEachBindASessionOnTheirDevice() {
		this.contextRunner.withUserConfiguration(ServicesConfiguration.class).run((context) -> {
			List<Integer> seen = context.getBean(OnDeviceZero.class).callDeviceOne();
			assertThat(seen).containsExactly(0, 1, 0);
			assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ServicesConfiguration {

		@Bean
		OnDeviceOne onDeviceOne() {
			return new OnDeviceOne();
		}

		@Bean
		OnDeviceZero onDeviceZero(OnDeviceOne one) {
			return new OnDeviceZero(one);
		}

	}

	static class OnDeviceZero {

		private final OnDeviceOne one;

		OnDeviceZero(OnDeviceOne one) {
			this.one = one;
		}

		@Offload(device = 0)
		public List<Integer> callDeviceOne() {
			OffloadSession outer = OffloadSessionBinding.currentSession().orElseThrow();
			int inner = this.one.deviceId();
			OffloadSession after = OffloadSessionBinding.currentSession().orElseThrow();
			assertThat(after).isSameAs(outer);
			return List.of(outer.device().id(), inner, after.device().id());
		}

	}

	static class OnDeviceOne {

		@Offload(device = 1)
		public int deviceId() {
			OffloadSession session = OffloadSessionBinding.currentSession().orElseThrow();
			session.fill(session.allocate(16), (byte) 1);
			return session.device().id();
		}

	}

}
