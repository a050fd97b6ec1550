package dev.offload.template;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.InvalidSettingException;
import dev.offload.OffloadSession;
import dev.offload.SessionOptions;
import dev.offload.StreamPriority;
import dev.offload.TenantPolicy;
import dev.offload.TenantPolicy.TenantShare;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The tenant of a session: named in {@link SessionOptions}, {@link OffloadAttributes} and
 * {@link Offload @Offload}, or resolved by the template's {@link TenantResolver}; and the
 * checks of {@link TenantPolicy}.
 */
class TenantApiTests {

	private DeviceRegistry registry;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().build())
			.tenants(TenantPolicy.DEFAULTS.withTenant("gold", TenantShare.ofWeight(4)))
			.build();
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void sessionOptionsShouldCarryTheTenantToTheSession() {
		try (OffloadSession session = this.registry.openSession(SessionOptions.DEFAULTS.withTenant("acme"))) {
			assertThat(session.tenant()).isEqualTo("acme");
		}
		try (OffloadSession session = this.registry.openSession(SessionOptions.DEFAULTS)) {
			assertThat(session.tenant()).isNull();
		}
		assertThat(this.registry.tenantPolicy().weightOf("gold")).isEqualTo(4);
	}

	@Test
	void oldConstructorsShouldStillWorkWithoutATenant() {
		SessionOptions options = new SessionOptions(SessionOptions.ANY_DEVICE, StreamPriority.HIGH, null, 16);
		assertThat(options.tenant()).isNull();
		assertThat(options.withTenant("a").withPriority(StreamPriority.NORMAL).tenant()).isEqualTo("a");
		assertThat(new OffloadAttributes(-1, Propagation.REQUIRED, StreamPriority.NORMAL, null, 0).tenant()).isNull();
	}

	@Test
	void badTenantNamesShouldBeRefusedNamingTheTenantAndTheRule() {
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> SessionOptions.DEFAULTS.withTenant("has space"))
			.withMessageContaining("'has space'")
			.withMessageContaining("1 to 64 characters of letters, digits and . _ : @ -")
			.satisfies((ex) -> assertThat(ex.getSetting()).isEqualTo("tenant"));
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> SessionOptions.DEFAULTS.withTenant(""))
			.withMessageContaining("''");
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> SessionOptions.DEFAULTS.withTenant("x".repeat(65)));
		assertThat(SessionOptions.DEFAULTS.withTenant("x".repeat(64)).tenant()).hasSize(64);
		assertThat(SessionOptions.DEFAULTS.withTenant("team.a_b:c@d-e").tenant()).isEqualTo("team.a_b:c@d-e");
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> OffloadAttributes.DEFAULTS.withTenant("ünï"))
			.withMessageContaining("'ünï'");
	}

	@Test
	void tenantPolicyShouldCheckItsValues() {
		assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> TenantShare.ofWeight(0))
			.withMessage("weight must be from 1 to 1000, was 0");
		assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> new TenantShare(1, -1, 0))
			.withMessageContaining("max-streams");
		assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> new TenantShare(1, 0, -1))
			.withMessageContaining("max-memory");
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> TenantPolicy.DEFAULTS.withDefaultWeight(1001))
			.withMessageContaining("tenants.default-weight must be from 1 to 1000, was 1001");
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(
					() -> new TenantPolicy(1, Map.of("a", TenantShare.ofWeight(1), "b", TenantShare.ofWeight(1)), 1))
			.withMessageContaining(
					"tenants.max-tracked must be at least 1 and at least the number of named tenants (2)");
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> TenantPolicy.DEFAULTS.withTenant("a b", TenantShare.ofWeight(1)))
			.withMessageContaining("'a b'");
		TenantPolicy policy = TenantPolicy.DEFAULTS.withDefaultWeight(3)
			.withTenant("gold", new TenantShare(5, 2, 1024));
		assertThat(policy.shareOf("gold")).isEqualTo(new TenantShare(5, 2, 1024));
		assertThat(policy.shareOf("other")).isEqualTo(new TenantShare(3, 0, 0));
		assertThat(policy.weightOf(null)).isEqualTo(3);
	}

	@Test
	void templateShouldAskItsResolverOnlyWhenTheAttributesNameNoTenant() {
		OffloadTemplate template = new OffloadTemplate(this.registry, BatchPolicy.DEFAULTS, BatchListener.NONE,
				() -> "resolved");
		assertThat(template.execute(OffloadSession::tenant)).isEqualTo("resolved");
		assertThat(template.execute(OffloadAttributes.DEFAULTS.withTenant("named"), OffloadSession::tenant))
			.isEqualTo("named");
		// A joined session keeps its own tenant.
		String joined = template.execute(OffloadAttributes.DEFAULTS,
				(outer) -> template.execute(OffloadAttributes.DEFAULTS.withTenant("inner"), OffloadSession::tenant));
		assertThat(joined).isEqualTo("resolved");
		assertThat(new OffloadTemplate(this.registry).execute(OffloadSession::tenant)).isNull();
	}

	@Test
	void resolverNamingABadTenantShouldFailTheCallNamingIt() {
		OffloadTemplate template = new OffloadTemplate(this.registry, BatchPolicy.DEFAULTS, BatchListener.NONE,
				() -> "bad tenant");
		assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> template.execute((s) -> 1))
			.withMessageContaining("'bad tenant'");
		assertThat(this.registry.devices().get(0).activeSessions()).isZero();
	}

	@Test
	void offloadAnnotationShouldNameTheTenant() throws Exception {
		Method method = Annotated.class.getDeclaredMethod("work");
		OffloadAttributes attributes = OffloadAttributes.of(method.getAnnotation(Offload.class));
		assertThat(attributes.tenant()).isEqualTo("reports");
		OffloadInvoker invoker = new OffloadInvoker(this.registry, () -> "resolved");
		assertThat(invoker.execute(attributes, () -> OffloadSessionBinding.currentSession().orElseThrow().tenant()))
			.isEqualTo("reports");
		assertThat(invoker.execute(OffloadAttributes.DEFAULTS,
				() -> OffloadSessionBinding.currentSession().orElseThrow().tenant()))
			.isEqualTo("resolved");
		Method plain = Annotated.class.getDeclaredMethod("plain");
		assertThat(OffloadAttributes.of(plain.getAnnotation(Offload.class)).tenant()).isNull();
	}

	static class Annotated {

		@Offload(tenant = "reports")
		void work() {
		}

		@Offload
		void plain() {
		}

	}

}
