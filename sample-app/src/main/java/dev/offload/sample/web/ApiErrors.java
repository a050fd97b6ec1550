package dev.offload.sample.web;

import java.util.List;
import java.util.stream.Collectors;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

import dev.offload.DeviceFailedException;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPoolClosedException;

/**
 * Turns bad requests and a full or failed device into problem details (RFC 9457) that name what was wrong.
 */
@RestControllerAdvice
class ApiErrors {

	/** Seconds a client should wait before retrying when the pool is full. */
	static final String RETRY_AFTER_SECONDS = "1";

	@ExceptionHandler(MethodArgumentNotValidException.class)
	ResponseEntity<ProblemDetail> invalid(MethodArgumentNotValidException ex) {
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

	@ExceptionHandler(HttpMessageNotReadableException.class)
	ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, describe(ex));
		problem.setTitle("Unreadable request");
		return ResponseEntity.badRequest().body(problem);
	}

	@ExceptionHandler(MethodArgumentTypeMismatchException.class)
	ResponseEntity<ProblemDetail> mismatch(MethodArgumentTypeMismatchException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"'" + ex.getName() + "' is not a valid " + ex.getRequiredType().getSimpleName() + ": " + ex.getValue());
		return ResponseEntity.badRequest().body(problem);
	}

	@ExceptionHandler({ StreamBorrowTimeoutException.class, StreamPoolClosedException.class })
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
	 * Names the field of a JSON error: an unknown field, a value of the wrong type, malformed JSON.
	 */
	static String describe(HttpMessageNotReadableException ex) {
		Throwable cause = ex.getMostSpecificCause();
		if (cause instanceof tools.jackson.databind.exc.UnrecognizedPropertyException unknown) {
			return "Unknown field '" + unknown.getPropertyName() + "'" + at(unknown.getPath());
		}
		if (cause instanceof tools.jackson.databind.DatabindException mapping && !mapping.getPath().isEmpty()) {
			return "Invalid value for field '" + path(mapping.getPath()) + "': " + firstLine(mapping.getOriginalMessage());
		}
		return "Malformed JSON: " + firstLine(cause.getMessage());
	}

	private static String at(List<tools.jackson.databind.DatabindException.Reference> path) {
		return (path.size() > 1) ? " in '" + path(path.subList(0, path.size() - 1)) + "'" : "";
	}

	private static String path(List<tools.jackson.databind.DatabindException.Reference> path) {
		return path.stream()
			.map((ref) -> (ref.getPropertyName() != null) ? "." + ref.getPropertyName() : "[" + ref.getIndex() + "]")
			.collect(Collectors.joining())
			.replaceFirst("^\\.", "");
	}

	private static String firstLine(String message) {
		if (message == null) {
			return "";
		}
		int end = message.indexOf('\n');
		return (end < 0) ? message : message.substring(0, end);
	}

}
