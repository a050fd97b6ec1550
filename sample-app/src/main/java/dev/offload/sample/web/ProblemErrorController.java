package dev.offload.sample.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The error page as a problem detail, in place of Boot's {@code BasicErrorController}:
 * errors that reach the container without passing {@link ApiErrors} (Tomcat's own 400,
 * 405 for {@code TRACE}, 408, an error sent by a filter) are answered with their status
 * and its reason, never a stack trace or an exception's message, and {@code /error}
 * requested directly is a 404 (Boot's answers 500). It carries the security headers of
 * every answer.
 */
@RestController
class ProblemErrorController implements ErrorController {

	@RequestMapping("${server.error.path:/error}")
	ResponseEntity<ProblemDetail> error(HttpServletRequest request, HttpServletResponse response) {
		// Whatever dispatched here (the error may have bypassed the filters): the
		// security headers of every answer.
		SecurityHeadersFilter.addTo(response);
		Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
		HttpStatus status = (code instanceof Integer value) ? HttpStatus.resolve(value) : null;
		if (status == null || !status.isError()) {
			status = HttpStatus.NOT_FOUND;
		}
		ProblemDetail problem = ProblemDetail.forStatus(status);
		problem.setTitle(status.getReasonPhrase());
		return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

}
