package dev.offload.sample.web;

import java.time.Clock;
import java.time.Duration;

import tools.jackson.core.StreamReadFeature;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import dev.offload.DeviceRegistry;

/**
 * What guards the API before a controller runs: security headers on every response, the
 * request body limit before anything reads a body, strict JSON (a duplicate key is an
 * error, not "the last one wins"), and, before a body is parsed, the media type check and
 * the admission of price requests; the fair shares of the Monte Carlo slots; and, at
 * shutdown, the closing of kept-alive connections before Tomcat pauses.
 */
@Configuration(proxyBeanMethods = false)
class WebConfiguration implements WebMvcConfigurer {

	/**
	 * How long a client refused a Monte Carlo slot still counts for the fair shares: a
	 * few times the {@code Retry-After} it was given.
	 */
	static final Duration CLIENT_PATIENCE = Duration.ofSeconds(5);

	private final PriceAdmission priceAdmission;

	WebConfiguration(@Value("${sample.price.max-in-flight:0}") int maxPricesInFlight,
			@Value("${sample.price.timeout:1s}") Duration priceTimeout,
			@Value("${sample.price.admission-wait:250ms}") Duration admissionWait) {
		// By default two per CPU: parsing and validating a batch is CPU work. A burst
		// beyond that (a browser alone opens 6 connections) waits for a place, up to the
		// admission wait; the deadline, stamped on arrival, counts that wait.
		this.priceAdmission = new PriceAdmission(
				(maxPricesInFlight > 0) ? maxPricesInFlight : 2 * Runtime.getRuntime().availableProcessors(),
				priceTimeout, admissionWait);
	}

	@Bean
	PriceAdmission priceAdmission() {
		return this.priceAdmission;
	}

	@Bean
	ClientShares monteCarloShares(DeviceRegistry registry,
			@Value("${offload.stream-pool.lanes.normal.max-sessions:4}") int slotsPerDevice) {
		return new ClientShares(slotsPerDevice * registry.devices().size(), CLIENT_PATIENCE, Clock.systemUTC());
	}

	@Bean
	ClientKey clientKey(@Value("${sample.jobs.client-id-header:}") String header) {
		return new ClientKey(header);
	}

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(new MediaTypeCheck()).addPathPatterns("/api/**");
		registry.addInterceptor(this.priceAdmission).addPathPatterns("/api/options/price");
	}

	@Bean
	JsonMapperBuilderCustomizer strictDuplicateDetection() {
		return (builder) -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
	}

	@Bean
	KeepAliveDrain keepAliveDrain(@Value("${sample.shutdown.keep-alive-drain:3s}") Duration drain) {
		return new KeepAliveDrain(drain);
	}

	@Bean
	FilterRegistrationBean<KeepAliveDrain> keepAliveDrainFilter(KeepAliveDrain drain) {
		FilterRegistrationBean<KeepAliveDrain> registration = new FilterRegistrationBean<>(drain);
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

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
