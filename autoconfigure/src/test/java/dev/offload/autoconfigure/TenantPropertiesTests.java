package dev.offload.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;

import dev.offload.DeviceRegistry;
import dev.offload.TenantPolicy;
import dev.offload.TenantPolicy.TenantShare;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@code offload.tenants.*}: the shares, the default weight and the bound on
 * tracked tenants reach the registry's {@link TenantPolicy}; an invalid value fails the
 * startup naming its property.
 */
class TenantPropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class))
		.withPropertyValues("offload.backend=host");

	private static InvalidOffloadConfigurationException invalidConfiguration(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidOffloadConfigurationException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("No InvalidOffloadConfigurationException in " + failure, failure);
	}

	@Test
	void tenantPolicyWhenNotSetShouldBeTheDefaults() {
		this.contextRunner.run((context) -> assertThat(context.getBean(DeviceRegistry.class).tenantPolicy())
			.isEqualTo(TenantPolicy.DEFAULTS));
	}

	@Test
	void sharesShouldReachTheRegistrysPolicy() {
		this.contextRunner
			.withPropertyValues("offload.tenants.default-weight=2", "offload.tenants.max-tracked=10",
					"offload.tenants.shares.checkout.weight=8", "offload.tenants.shares[acme.eu].max-streams=4",
					"offload.tenants.shares[acme.eu].max-memory=2GB")
			.run((context) -> assertThat(context.getBean(DeviceRegistry.class).tenantPolicy())
				.isEqualTo(new TenantPolicy(2, Map.of("checkout", new TenantShare(8, 0, 0), "acme.eu",
						new TenantShare(1, 4, DataSize.ofGigabytes(2).toBytes())), 10)));
	}

	@Test
	void shareWeightOutOfBoundsShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("offload.tenants.shares.checkout.weight=0")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure()).getProperty())
				.isEqualTo("offload.tenants.shares.checkout.weight"));
		this.contextRunner.withPropertyValues("offload.tenants.shares.checkout.max-streams=-1")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure()).getProperty())
				.isEqualTo("offload.tenants.shares.checkout.max-streams"));
		this.contextRunner.withPropertyValues("offload.tenants.shares.checkout.max-memory=-1MB")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure()).getProperty())
				.isEqualTo("offload.tenants.shares.checkout.max-memory"));
	}

	@Test
	void defaultWeightOrMaxTrackedOutOfBoundsShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("offload.tenants.default-weight=1001").run((context) -> {
			InvalidOffloadConfigurationException ex = invalidConfiguration(context.getStartupFailure());
			assertThat(ex.getProperty()).isEqualTo("offload.tenants.default-weight");
			assertThat(ex.getReason()).contains("1000").contains("1001");
		});
		this.contextRunner
			.withPropertyValues("offload.tenants.max-tracked=1", "offload.tenants.shares.a.weight=2",
					"offload.tenants.shares.b.weight=3")
			.run((context) -> assertThat(invalidConfiguration(context.getStartupFailure()).getProperty())
				.isEqualTo("offload.tenants.max-tracked"));
	}

	@Test
	void shareOfANameThatIsNoTenantShouldFailNamingTheShares() {
		this.contextRunner.withPropertyValues("offload.tenants.shares[a b].weight=2").run((context) -> {
			InvalidOffloadConfigurationException ex = invalidConfiguration(context.getStartupFailure());
			assertThat(ex.getProperty()).isEqualTo("offload.tenants.shares");
			assertThat(ex.getReason()).contains("'a b'");
		});
	}

}
