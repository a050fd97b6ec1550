package dev.offload.sample.web;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a request body larger than {@code sample.max-request-body} (1 MB by default,
 * four times the largest valid batch) with 413 before anything parses it: at once when
 * {@code Content-Length} says so, and as soon as a body without a length passes the limit
 * while it is read (then {@link BodyTooLargeException} reaches {@link ApiErrors}).
 */
final class RequestBodyLimitFilter extends OncePerRequestFilter {

	private final long maxBytes;

	RequestBodyLimitFilter(DataSize max) {
		if (max.toBytes() <= 0) {
			throw new IllegalArgumentException("sample.max-request-body must be positive, was " + max);
		}
		this.maxBytes = max.toBytes();
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		long length = request.getContentLengthLong();
		if (length > this.maxBytes) {
			response.setStatus(HttpStatus.CONTENT_TOO_LARGE.value());
			response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setHeader("Connection", "close");
			response.getWriter()
				.write("{\"type\":\"about:blank\",\"title\":\"Request body too large\",\"status\":413,\"detail\":"
						+ "\"The request body has " + length + " bytes; at most " + this.maxBytes + " are accepted\"}");
			return;
		}
		chain.doFilter(new LimitedRequest(request, this.maxBytes), response);
	}

	/**
	 * A body that grew past the limit while it was read.
	 */
	static final class BodyTooLargeException extends IOException {

		BodyTooLargeException(long maxBytes) {
			super("The request body is larger than " + maxBytes + " bytes");
		}

	}

	private static final class LimitedRequest extends HttpServletRequestWrapper {

		private final long maxBytes;

		private ServletInputStream stream;

		LimitedRequest(HttpServletRequest request, long maxBytes) {
			super(request);
			this.maxBytes = maxBytes;
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (this.stream == null) {
				this.stream = new LimitedStream(super.getInputStream(), this.maxBytes);
			}
			return this.stream;
		}

	}

	private static final class LimitedStream extends ServletInputStream {

		private final ServletInputStream in;

		private final long maxBytes;

		private long read;

		LimitedStream(ServletInputStream in, long maxBytes) {
			this.in = in;
			this.maxBytes = maxBytes;
		}

		@Override
		public int read() throws IOException {
			int b = this.in.read();
			if (b >= 0) {
				count(1);
			}
			return b;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int n = this.in.read(buffer, offset, length);
			if (n > 0) {
				count(n);
			}
			return n;
		}

		private void count(int n) throws BodyTooLargeException {
			this.read += n;
			if (this.read > this.maxBytes) {
				throw new BodyTooLargeException(this.maxBytes);
			}
		}

		@Override
		public boolean isFinished() {
			return this.in.isFinished();
		}

		@Override
		public boolean isReady() {
			return this.in.isReady();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.in.setReadListener(listener);
		}

	}

}
