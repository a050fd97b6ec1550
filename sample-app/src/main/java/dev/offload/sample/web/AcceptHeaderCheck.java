package dev.offload.sample.web;

import java.io.IOException;
import java.util.Collections;
import java.util.List;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers a request whose {@code Accept} header cannot be parsed (such as
 * {@code Accept: ;;;}) with a 400 problem detail, written here: Spring would answer 406,
 * and with an empty body, since no media type can be chosen against a header it cannot
 * read, not even for the problem detail.
 */
final class AcceptHeaderCheck extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		List<String> accept = Collections.list(request.getHeaders(HttpHeaders.ACCEPT));
		if (!accept.isEmpty()) {
			try {
				MediaType.parseMediaTypes(accept);
			}
			catch (InvalidMediaTypeException ex) {
				response.setStatus(HttpStatus.BAD_REQUEST.value());
				response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
				response.getOutputStream()
					.print("{\"type\":\"about:blank\",\"title\":\"Invalid Accept header\",\"status\":400,"
							+ "\"detail\":\"The Accept header is not a list of media types\"}");
				return;
			}
		}
		chain.doFilter(request, response);
	}

}
