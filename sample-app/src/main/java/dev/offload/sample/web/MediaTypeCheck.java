package dev.offload.sample.web;

import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpMethod;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Refuses a wildcard {@code Content-Type} ({@code *}{@code /*}, {@code application/*})
 * with 415 before the body is read: Spring's message converters would otherwise fail with
 * an {@link IllegalArgumentException}, a 500 with a stack trace in the log.
 */
final class MediaTypeCheck implements HandlerInterceptor {

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws HttpMediaTypeNotSupportedException {
		String contentType = request.getContentType();
		if (contentType == null) {
			return true;
		}
		try {
			MediaType type = MediaType.parseMediaType(contentType);
			if (type.isWildcardType() || type.isWildcardSubtype()) {
				throw new HttpMediaTypeNotSupportedException(type, List.of(MediaType.APPLICATION_JSON),
						HttpMethod.valueOf(request.getMethod()));
			}
		}
		catch (InvalidMediaTypeException ex) {
			throw new HttpMediaTypeNotSupportedException(ex.getMessage());
		}
		return true;
	}

}
