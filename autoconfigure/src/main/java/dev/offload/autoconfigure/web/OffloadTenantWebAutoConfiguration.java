package dev.offload.autoconfigure.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.offload.autoconfigure.OffloadProperties;
import dev.offload.autoconfigure.template.OffloadTemplateAutoConfiguration;
import dev.offload.spring.web.RequestTenantResolver;
import dev.offload.template.TenantResolver;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the tenant of a servlet web request's sessions: a
 * {@link RequestTenantResolver} reading {@code offload.tenants.header} and, when
 * {@code offload.tenants.principal} is true, the authenticated principal, which the
 * {@link dev.offload.template.OffloadTemplate} and the {@code @Offload} advice consult
 * when a session names no tenant. Only when one of the two is set, and unless the
 * application defines its own {@link TenantResolver}.
 */
@AutoConfiguration(before = OffloadTemplateAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = { "org.springframework.web.context.request.ServletRequestAttributes",
		"jakarta.servlet.http.HttpServletRequest" })
@ConditionalOnExpression("'${offload.tenants.header:}'.trim() != '' or '${offload.tenants.principal:false}'.trim().equalsIgnoreCase('true')")
@EnableConfigurationProperties(OffloadProperties.class)
public final class OffloadTenantWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(TenantResolver.class)
	RequestTenantResolver offloadTenantResolver(OffloadProperties properties) {
		return new RequestTenantResolver(properties.getTenants().getHeader(), properties.getTenants().isPrincipal());
	}

}
