package dev.offload.sample.web;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import tools.jackson.core.StreamReadFeature;

import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import dev.offload.DeviceRegistry;
import dev.offload.sample.pricing.MonteCarloResult;

/**
 * What guards the API before a controller runs: security headers on every response (error
 * pages included), an unparseable {@code Accept} refused with a problem detail, the
 * request body limit before anything reads a body, the body read in full within a bound
 * before anything admits it, strict JSON (a duplicate key is an error, not "the last one
 * wins"), and, before a body is parsed, the media type check and the admission of price
 * and scenario risk requests; the Monte Carlo jobs' queue, fair among tenants; and, at
 * shutdown, new Monte Carlo jobs refused first, then the closing of kept-alive
 * connections before Tomcat pauses.
 */
@Configuration(proxyBeanMethods = false)
class WebConfiguration implements WebMvcConfigurer {

	/**
	 * How long after the device refused a queued Monte Carlo job (its lane, pool or
	 * memory budget full) the queue tries again.
	 */
	static final Duration QUEUE_RETRY_DELAY = Duration.ofMillis(250);

	private final PriceAdmission priceAdmission;

	/** Not a bean: {@link PriceAdmission} beans are the price requests'. */
	private final PriceAdmission riskAdmission;

	WebConfiguration(@Value("${sample.price.max-in-flight:0}") int maxPricesInFlight,
			@Value("${sample.price.timeout:1s}") Duration priceTimeout,
			@Value("${sample.price.admission-wait:250ms}") Duration admissionWait,
			@Value("${sample.risk.max-in-flight:2}") int maxRiskInFlight,
			@Value("${sample.risk.timeout:10s}") Duration riskTimeout,
			@Value("${sample.risk.admission-wait:250ms}") Duration riskAdmissionWait) {
		// By default two per CPU: parsing and validating a batch is CPU work. A burst
		// beyond that (a browser alone opens 6 connections) waits for a place, up to the
		// admission wait; the deadline, stamped on arrival, counts that wait.
		this.priceAdmission = new PriceAdmission(
				(maxPricesInFlight > 0) ? maxPricesInFlight : 2 * Runtime.getRuntime().availableProcessors(),
				priceTimeout, admissionWait);
		// Two by default: at the bounds a request holds about 200 MB of heap (its
		// scenarios, P&L matrix and their copies); its device work also needs one of the
		// normal lane's sessions, which the Monte Carlo jobs share.
		this.riskAdmission = new PriceAdmission("sample.risk", "scenario risk requests", maxRiskInFlight, riskTimeout,
				riskAdmissionWait);
	}

	@Bean
	PriceAdmission priceAdmission() {
		return this.priceAdmission;
	}

	/**
	 * The thread that starts queued Monte Carlo jobs as slots free up, off the threads
	 * that complete device work.
	 */
	@Bean(destroyMethod = "shutdownNow")
	ExecutorService monteCarloDispatcher() {
		return Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "monte-carlo-dispatch");
			thread.setDaemon(true);
			return thread;
		});
	}

	@Bean
	FairJobQueue<MonteCarloResult> monteCarloQueue(DeviceRegistry registry,
			@Value("${offload.stream-pool.lanes.normal.max-sessions:4}") int slotsPerDevice,
			@Value("${sample.jobs.max-queued-per-tenant:16}") int maxQueuedPerTenant,
			ExecutorService monteCarloDispatcher) {
		return new FairJobQueue<>(slotsPerDevice * registry.devices().size(), maxQueuedPerTenant,
				OptionsController::isRefusal, OptionsController::isBusy, monteCarloDispatcher, QUEUE_RETRY_DELAY);
	}

	/**
	 * The tenant of a Monte Carlo job's sessions, in place of Offload's resolver of the
	 * request: a queued job starts off its request's thread.
	 */
	@Bean
	JobTenant jobTenant() {
		return new JobTenant();
	}

	@Bean
	TenantKey tenantKey(@Value("${sample.tenants.header:${sample.jobs.client-id-header:}}") String header) {
		return new TenantKey(header);
	}

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(new MediaTypeCheck()).addPathPatterns("/api/**");
		registry.addInterceptor(this.priceAdmission).addPathPatterns("/api/options/price");
		registry.addInterceptor(this.riskAdmission).addPathPatterns("/api/portfolio/scenario-risk");
	}

	@Bean
	JsonMapperBuilderCustomizer strictDuplicateDetection() {
		return (builder) -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
	}

	/**
	 * Tomcat's own error answers as problem details with the security headers: in place
	 * of the error report valve (Boot's, or Tomcat's default), after Boot's customizers.
	 */
	@Bean
	WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReports() {
		return new WebServerFactoryCustomizer<>() {

			@Override
			public void customize(TomcatServletWebServerFactory factory) {
				factory.addContextCustomizers((context) -> {
					if (context.getParent() instanceof StandardHost host) {
						for (Valve valve : host.getPipeline().getValves()) {
							if (valve instanceof ErrorReportValve) {
								host.getPipeline().removeValve(valve);
							}
						}
						host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
						host.getPipeline().addValve(new ProblemErrorReportValve());
					}
				});
			}

		};
	}

	@Bean
	MonteCarloJobs.Intake monteCarloIntake(MonteCarloJobs jobs) {
		return new MonteCarloJobs.Intake(jobs);
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

	@Bean
	FilterRegistrationBean<RequestBodyReader> requestBodyReader(
			@Value("${sample.request-body-timeout:3s}") Duration timeout,
			@Value("${sample.request-body-buffer:64MB}") DataSize buffer) {
		FilterRegistrationBean<RequestBodyReader> registration = new FilterRegistrationBean<>(
				new RequestBodyReader(timeout, buffer));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 2);
		return registration;
	}

	@Bean
	FilterRegistrationBean<AcceptHeaderCheck> acceptHeaderCheck() {
		FilterRegistrationBean<AcceptHeaderCheck> registration = new FilterRegistrationBean<>(new AcceptHeaderCheck());
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
		return registration;
	}

}
