package dev.offload.sample.web;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;

/**
 * The servlet filters that guard the API: security headers on every response, and the
 * request body limit before anything reads a body.
 */
@Configuration(proxyBeanMethods = false)
class WebConfiguration {

	@Bean
	FilterRegistrationBean<SecurityHeadersFilter> securityHeadersFilter() {
		FilterRegistrationBean<SecurityHeadersFilter> registration = new FilterRegistrationBean<>(
				new SecurityHeadersFilter());
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	@Bean
	FilterRegistrationBean<RequestBodyLimitFilter> requestBodyLimitFilter(
			@Value("${sample.max-request-body:1MB}") DataSize maxRequestBody) {
		FilterRegistrationBean<RequestBodyLimitFilter> registration = new FilterRegistrationBean<>(
				new RequestBodyLimitFilter(maxRequestBody));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
		return registration;
	}

}
