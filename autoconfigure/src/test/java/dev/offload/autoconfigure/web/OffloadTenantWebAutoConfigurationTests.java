package dev.offload.autoconfigure.web;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.server.ResponseStatusException;

import dev.offload.OffloadSession;
import dev.offload.autoconfigure.OffloadAutoConfiguration;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.spring.web.RequestTenantResolver;
import dev.offload.template.Offload;
import dev.offload.template.OffloadSessionBinding;
import dev.offload.template.OffloadTemplate;
import dev.offload.template.TenantResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link OffloadTenantWebAutoConfiguration}: in a servlet application with
 * {@code offload.tenants.header} or {@code offload.tenants.principal} set, the sessions
 * that the template and {@code @Offload} open on a request's thread are the request's
 * tenant's (the header first, then the principal); nothing is configured without either
 * setting, outside a servlet application, or when the application has its own resolver,
 * which is then the one the template asks.
 */
class OffloadTenantWebAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class, OffloadTemplateAutoConfiguration.class,
				OffloadTenantWebAutoConfiguration.class))
		.withPropertyValues("offload.backend=host");

	@AfterEach
	void clearRequest() {
		RequestContextHolder.resetRequestAttributes();
	}

	private static MockHttpServletRequest request(String tenantHeader, String principal) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/work");
		if (tenantHeader != null) {
			request.addHeader("X-Tenant-Id", tenantHeader);
		}
		if (principal != null) {
			request.setUserPrincipal(() -> principal);
		}
		RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
		return request;
	}

	@Test
	void principalSpelledInAnyCaseShouldConfigureTheResolver() {
		this.contextRunner.withPropertyValues("offload.tenants.principal=TRUE")
			.run((context) -> assertThat(context).hasSingleBean(TenantResolver.class));
	}

	@Test
	void headerShouldNameTheTenantOfTheTemplatesAndTheAnnotatedMethodsSessions() {
		this.contextRunner.withPropertyValues("offload.tenants.header=X-Tenant-Id")
			.withUserConfiguration(AnnotatedServiceConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(RequestTenantResolver.class);
				OffloadTemplate template = context.getBean(OffloadTemplate.class);
				AnnotatedService service = context.getBean(AnnotatedService.class);
				request("acme", null);
				assertThat(template.execute(OffloadSession::tenant)).isEqualTo("acme");
				assertThat(service.tenant()).isEqualTo("acme");
				request(null, "alice");
				assertThat(template.execute(OffloadSession::tenant)).isNull();
				RequestContextHolder.resetRequestAttributes();
				assertThat(template.execute(OffloadSession::tenant)).isNull();
				assertThat(service.tenant()).isNull();
			});
	}

	@Test
	void principalShouldNameTheTenantWhenTheHeaderIsAbsent() {
		this.contextRunner.withPropertyValues("offload.tenants.header=X-Tenant-Id", "offload.tenants.principal=true")
			.run((context) -> {
				OffloadTemplate template = context.getBean(OffloadTemplate.class);
				request("acme", "alice");
				assertThat(template.execute(OffloadSession::tenant)).isEqualTo("acme");
				request(null, "alice smith@example.com");
				assertThat(template.execute(OffloadSession::tenant)).isEqualTo("alice_smith@example.com");
				request(null, null);
				assertThat(template.execute(OffloadSession::tenant)).isNull();
			});
	}

	@Test
	void headerValueThatIsNoTenantShouldBeABadRequestWithoutTheValue() {
		this.contextRunner.withPropertyValues("offload.tenants.header=X-Tenant-Id").run((context) -> {
			OffloadTemplate template = context.getBean(OffloadTemplate.class);
			request("<script>", null);
			assertThatExceptionOfType(ResponseStatusException.class)
				.isThrownBy(() -> template.execute(OffloadSession::tenant))
				.satisfies((ex) -> assertThat(ex.getStatusCode().value()).isEqualTo(400))
				.withMessageContaining("X-Tenant-Id")
				.withMessageNotContaining("script");
		});
	}

	@Test
	void resolverShouldNotBeConfiguredWithoutHeaderOrPrincipal() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(TenantResolver.class);
			assertThat(context.getBean(OffloadTemplate.class).tenantResolver()).isSameAs(TenantResolver.NONE);
		});
	}

	@Test
	void resolverShouldNotBeConfiguredOutsideAServletApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(OffloadAutoConfiguration.class,
					OffloadTemplateAutoConfiguration.class, OffloadTenantWebAutoConfiguration.class))
			.withPropertyValues("offload.backend=host", "offload.tenants.header=X-Tenant-Id")
			.run((context) -> assertThat(context).doesNotHaveBean(TenantResolver.class));
	}

	@Test
	void resolverShouldBackOffForTheApplicationsOwnWhichTheTemplateAsks() {
		this.contextRunner.withPropertyValues("offload.tenants.header=X-Tenant-Id")
			.withUserConfiguration(OwnResolver.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RequestTenantResolver.class);
				request("acme", null);
				assertThat(context.getBean(OffloadTemplate.class).execute(OffloadSession::tenant)).isEqualTo("batch");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnResolver {

		@Bean
		TenantResolver batchTenant() {
			return () -> "batch";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotatedServiceConfiguration {

		@Bean
		AnnotatedService annotatedService() {
			return new AnnotatedService();
		}

	}

	static class AnnotatedService {

		@Offload
		public String tenant() {
			return OffloadSessionBinding.currentSession().orElseThrow().tenant();
		}

	}

}
