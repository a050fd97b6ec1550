package dev.offload.sample.web;

import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
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
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.SessionTimeoutException;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPoolClosedException;
import dev.offload.template.BatchQueueFullException;
import dev.offload.template.BatchTimeoutException;

/**
 * Turns every error into a problem detail (RFC 9457) that names what was wrong: bad
 * requests (400, naming the field, echoing at most {@value #MAX_ECHO} characters of a
 * value and never a Java type, listing at most {@value #MAX_ERRORS} invalid values and
 * counting them all), a body too large (413) or too slow (408), unknown paths, methods
 * and media types (404, 405, 415, 406, through Spring's own handler; a 405 is logged at
 * DEBUG, not WARN), a client holding its share of the job store (429 with
 * {@code Retry-After}), and a busy service or a failed device (503, with
 * {@code Retry-After} when a retry can succeed: a full lane, pool or memory budget, a
 * missed deadline, a shutdown, a request shed at the door). A 503 does not show the
 * pool's state.
 */
@RestControllerAdvice
class ApiErrors extends ResponseEntityExceptionHandler {

	/** Seconds a client should wait before retrying when the pool is full. */
	static final String RETRY_AFTER_SECONDS = "1";

	/** The most characters of a request's value echoed in an error. */
	static final int MAX_ECHO = 40;

	/** Jackson's message for a duplicate key (strict duplicate detection). */
	private static final Pattern DUPLICATE = Pattern.compile("^Duplicate Object property \"(.*)\"");

	/** The most invalid values listed in a 400; the problem counts all of them. */
	static final int MAX_ERRORS = 10;

	@Override
	protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		List<InvalidValues.InvalidValue> values = new ArrayList<>();
		ex.getBindingResult()
			.getFieldErrors()
			.forEach((error) -> values
				.add(new InvalidValues.InvalidValue(error.getField(), String.valueOf(error.getDefaultMessage()))));
		ex.getBindingResult()
			.getGlobalErrors()
			.forEach((error) -> values
				.add(new InvalidValues.InvalidValue(error.getObjectName(), String.valueOf(error.getDefaultMessage()))));
		values.sort(Comparator.comparing(InvalidValues.InvalidValue::field)
			.thenComparing(InvalidValues.InvalidValue::message));
		List<InvalidValues.InvalidValue> listed = values.subList(0, Math.min(values.size(), MAX_ERRORS));
		return ResponseEntity.badRequest().body(invalid(new InvalidValues(List.copyOf(listed), values.size())));
	}

	@ExceptionHandler(InvalidValuesException.class)
	ResponseEntity<ProblemDetail> invalidValues(InvalidValuesException ex) {
		return ResponseEntity.badRequest().body(invalid(ex.values()));
	}

	/**
	 * One 400 for every invalid request: the count in the detail, the first
	 * {@value #MAX_ERRORS} values (field and message, each once) in {@code errors}.
	 */
	private static ProblemDetail invalid(InvalidValues values) {
		String detail = (values.count() == 1) ? "The request has 1 invalid value"
				: "The request has " + values.count() + " invalid values" + ((values.count() > values.listed().size())
						? "; the first " + values.listed().size() + " are listed" : "");
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
		problem.setTitle("Invalid request");
		problem.setProperty("errorCount", values.count());
		problem.setProperty("errors", values.listed());
		return problem;
	}

	@Override
	protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		if (findCause(ex, SocketTimeoutException.class) != null) {
			ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.REQUEST_TIMEOUT,
					"The request body did not arrive in time");
			problem.setTitle("Request timeout");
			return ResponseEntity.status(HttpStatus.REQUEST_TIMEOUT)
				.header(HttpHeaders.CONNECTION, "close")
				.body(problem);
		}
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

	/**
	 * A full lane or pool, a missed deadline, a shutdown, or a request shed at the door:
	 * the client may retry. The detail does not say which, nor the pool's state, which is
	 * for operators (the actuator and the log at DEBUG), not for every caller.
	 */
	@ExceptionHandler({ StreamBorrowTimeoutException.class, StreamPoolClosedException.class,
			SessionTimeoutException.class, ShedException.class, BatchQueueFullException.class,
			BatchTimeoutException.class, MemoryBudgetExceededException.class, DeviceOutOfMemoryException.class })
	ResponseEntity<ProblemDetail> busy(RuntimeException ex) {
		logger.debug("503 with Retry-After: " + ex.getMessage());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"The service is at capacity; retry after " + RETRY_AFTER_SECONDS + " s");
		problem.setTitle("Service busy");
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
			.body(problem);
	}

	/**
	 * A tenant that holds its share of the Monte Carlo job store (429, retry once its
	 * oldest result expires) or of the queue (429, retry once one of its jobs started).
	 */
	@ExceptionHandler(TooManyJobsException.class)
	ResponseEntity<ProblemDetail> tooManyJobs(TooManyJobsException ex) {
		logger.debug("429 with Retry-After: " + ex.getMessage());
		long seconds = ex.retryAfterSeconds();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, ex.detail());
		problem.setTitle("Too many jobs");
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
			.body(problem);
	}

	/**
	 * A method the path does not serve: a client's mistake, answered 405 with
	 * {@code Allow}, and logged at DEBUG only (Spring logs each at WARN).
	 */
	@Override
	protected ResponseEntity<Object> handleHttpRequestMethodNotSupported(HttpRequestMethodNotSupportedException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		logger.debug("405: " + ex.getMessage());
		return handleExceptionInternal(ex, null, headers, status, request);
	}

	@ExceptionHandler(DeviceFailedException.class)
	ResponseEntity<ProblemDetail> failed(DeviceFailedException ex) {
		logger.debug("503 for a failed device: " + ex.getMessage());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"A device failed; the service cannot price on it");
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
		Matcher duplicate = (syntax != null) ? DUPLICATE.matcher(String.valueOf(syntax.getOriginalMessage())) : null;
		if (duplicate != null && duplicate.find()) {
			return "Duplicate field '" + echo(duplicate.group(1)) + "'";
		}
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

	static <T extends Throwable> T findCause(Throwable ex, Class<T> type) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

}
