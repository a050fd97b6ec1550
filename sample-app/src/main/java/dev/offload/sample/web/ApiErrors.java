package dev.offload.sample.web;

import java.util.List;
import java.util.stream.Collectors;

import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import dev.offload.DeviceFailedException;
import dev.offload.SessionTimeoutException;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPoolClosedException;

/**
 * Turns every error into a problem detail (RFC 9457) that names what was wrong: bad
 * requests (400, naming the field, echoing at most {@value #MAX_ECHO} characters of a
 * value and never a Java type), a body too large (413), unknown paths, methods and media
 * types (404, 405, 415, 406, through Spring's own handler), and a full or failed device
 * (503, with {@code Retry-After} when a retry can succeed: a full lane or pool, a missed
 * deadline, a shutdown).
 */
@RestControllerAdvice
class ApiErrors extends ResponseEntityExceptionHandler {

	/** Seconds a client should wait before retrying when the pool is full. */
	static final String RETRY_AFTER_SECONDS = "1";

	/** The most characters of a request's value echoed in an error. */
	static final int MAX_ECHO = 40;

	@Override
	protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		List<String> errors = ex.getBindingResult()
			.getFieldErrors()
			.stream()
			.map((error) -> error.getField() + " " + error.getDefaultMessage())
			.sorted()
			.toList();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"Invalid request: " + String.join("; ", errors));
		problem.setTitle("Invalid request");
		problem.setProperty("errors", errors);
		return ResponseEntity.badRequest().body(problem);
	}

	@Override
	protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		if (findCause(ex, RequestBodyLimitFilter.BodyTooLargeException.class) != null) {
			ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONTENT_TOO_LARGE,
					findCause(ex, RequestBodyLimitFilter.BodyTooLargeException.class).getMessage());
			problem.setTitle("Request body too large");
			return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(problem);
		}
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, describe(ex));
		problem.setTitle("Unreadable request");
		return ResponseEntity.badRequest().body(problem);
	}

	@Override
	protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		String name = (ex.getPropertyName() != null) ? ex.getPropertyName() : "value";
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"'" + name + "' is not valid: " + echo(ex.getValue()));
		problem.setTitle("Invalid request");
		return ResponseEntity.badRequest().body(problem);
	}

	@ExceptionHandler({ StreamBorrowTimeoutException.class, StreamPoolClosedException.class,
			SessionTimeoutException.class })
	ResponseEntity<ProblemDetail> busy(RuntimeException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
		problem.setTitle("No GPU stream available");
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
			.body(problem);
	}

	@ExceptionHandler(DeviceFailedException.class)
	ResponseEntity<ProblemDetail> failed(DeviceFailedException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
		problem.setTitle("Device failed");
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(problem);
	}

	/**
	 * Names the field of a JSON error (an unknown field, a value of the wrong type) or
	 * where malformed JSON broke, in words a client understands: JSON types, never Java
	 * ones.
	 */
	static String describe(HttpMessageNotReadableException ex) {
		UnrecognizedPropertyException unknown = findCause(ex, UnrecognizedPropertyException.class);
		if (unknown != null) {
			return "Unknown field '" + echo(unknown.getPropertyName()) + "'" + at(unknown.getPath());
		}
		DatabindException mapping = findCause(ex, DatabindException.class);
		if (mapping != null && !mapping.getPath().isEmpty()) {
			return "Invalid value for field '" + path(mapping.getPath()) + "': " + expected(mapping);
		}
		StreamReadException syntax = findCause(ex, StreamReadException.class);
		if (syntax != null && syntax.getLocation() != null) {
			TokenStreamLocation where = syntax.getLocation();
			return "Malformed JSON at line " + where.getLineNr() + ", column " + where.getColumnNr();
		}
		return (findCause(ex, MismatchedInputException.class) != null) ? "The request body is empty or not JSON"
				: "Malformed JSON";
	}

	private static String expected(DatabindException mapping) {
		String value = (mapping instanceof InvalidFormatException format) ? " (was " + echo(format.getValue()) + ")"
				: "";
		if (mapping instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
			return "expected " + jsonType(mismatch.getTargetType()) + value;
		}
		return "not a valid value" + value;
	}

	private static String jsonType(Class<?> type) {
		if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
			return "an integer";
		}
		if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
			return "a number";
		}
		if (type == String.class) {
			return "a string";
		}
		if (type.isArray() || Iterable.class.isAssignableFrom(type)) {
			return "an array";
		}
		return "an object";
	}

	static String echo(Object value) {
		if (value == null) {
			return "null";
		}
		String text = String.valueOf(value);
		return (text.length() <= MAX_ECHO) ? text : text.substring(0, MAX_ECHO) + "...";
	}

	private static String at(List<DatabindException.Reference> path) {
		return (path.size() > 1) ? " in '" + path(path.subList(0, path.size() - 1)) + "'" : "";
	}

	private static String path(List<DatabindException.Reference> path) {
		return path.stream()
			.map((ref) -> (ref.getPropertyName() != null) ? "." + echo(ref.getPropertyName())
					: "[" + ref.getIndex() + "]")
			.collect(Collectors.joining())
			.replaceFirst("^\\.", "");
	}

	private static <T extends Throwable> T findCause(Throwable ex, Class<T> type) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

}
