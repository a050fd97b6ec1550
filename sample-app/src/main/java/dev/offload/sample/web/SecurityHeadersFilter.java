package dev.offload.sample.web;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Adds the headers a browser needs to keep the dashboard and the API out of other sites'
 * frames and scripts: no framing, no content sniffing, scripts and styles from this
 * origin only, no referrer. On error pages too (the container's own errors, such as a
 * {@code TRACE} refused or a request Tomcat could not parse, dispatched to
 * {@link ProblemErrorController}): the filter runs on the error dispatch as well.
 */
final class SecurityHeadersFilter extends OncePerRequestFilter {

	static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
			+ "form-action 'self'";

	@Override
	protected boolean shouldNotFilterErrorDispatch() {
		return false;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		addTo(response);
		chain.doFilter(request, response);
	}

	static void addTo(HttpServletResponse response) {
		response.setHeader("X-Content-Type-Options", "nosniff");
		response.setHeader("X-Frame-Options", "DENY");
		response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
		response.setHeader("Referrer-Policy", "no-referrer");
	}

}
