package dev.offload.sample.web;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * Tomcat's own error answers, for requests that never reach the application (a request
 * line or header Tomcat cannot parse): a problem detail with the security headers of
 * every answer, in place of Tomcat's HTML page. Errors that reach the application are
 * answered by {@link ProblemErrorController}, and this valve leaves them alone.
 */
final class ProblemErrorReportValve extends ErrorReportValve {

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		int status = response.getStatus();
		if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		AtomicBoolean ioAllowed = new AtomicBoolean();
		response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
		if (!ioAllowed.get()) {
			return;
		}
		HttpStatus resolved = HttpStatus.resolve(status);
		String title = (resolved != null) ? resolved.getReasonPhrase() : "Error";
		try {
			SecurityHeadersFilter.addTo(response);
			response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setCharacterEncoding("utf-8");
			Writer writer = response.getReporter();
			if (writer != null) {
				writer.write("{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status + "}");
				response.finishResponse();
			}
		}
		catch (IOException | IllegalStateException ex) {
			// The connection is gone: nobody reads an answer.
		}
	}

}
