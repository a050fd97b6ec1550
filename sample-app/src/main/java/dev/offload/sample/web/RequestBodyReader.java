package dev.offload.sample.web;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.BufferedReader;
import java.net.SocketTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Reads an API request's body in full, before anything admits, parses or prices it, and
 * within a bound for the whole body ({@code sample.request-body-timeout}, 3 s by
 * default): a client that trickles its body (a byte every second or so, never silent long
 * enough for Tomcat's {@code connection-timeout}) gets a 408 problem detail and its
 * connection closed once the bound passed, and holds no admission place meanwhile, only
 * its connection's thread. Tomcat's connection timeout bounds each read, so a body never
 * holds a thread longer than the bound plus that timeout.
 * <p>
 * The bodies read at once may hold at most {@code sample.request-body-buffer} (64 MB by
 * default) together, counted as their bytes arrive, so that many large bodies sent at
 * once cannot fill the heap; past it a body is refused with 503 and {@code Retry-After}.
 * The request's arrival is stamped here: the price deadline counts from it.
 */
final class RequestBodyReader extends OncePerRequestFilter {

	static final String ARRIVED = RequestBodyReader.class.getName() + ".arrived";

	private static final Logger logger = LoggerFactory.getLogger(RequestBodyReader.class);

	private static final int CHUNK = 8192;

	private final long timeoutNanos;

	private final long bufferBytes;

	private final AtomicLong buffered = new AtomicLong();

	RequestBodyReader(Duration timeout, DataSize buffer) {
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("sample.request-body-timeout must be positive, was " + timeout);
		}
		if (buffer.toBytes() <= 0) {
			throw new IllegalArgumentException("sample.request-body-buffer must be positive, was " + buffer);
		}
		this.timeoutNanos = timeout.toNanos();
		this.bufferBytes = buffer.toBytes();
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !request.getRequestURI().startsWith("/api/") || !hasBody(request);
	}

	private static boolean hasBody(HttpServletRequest request) {
		return request.getContentLengthLong() > 0 || request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		long arrived = System.nanoTime();
		request.setAttribute(ARRIVED, arrived);
		long charged = 0;
		try {
			ByteArrayOutputStream body = new ByteArrayOutputStream(
					(int) Math.min(Math.max(request.getContentLengthLong(), 0), CHUNK));
			InputStream in = request.getInputStream();
			byte[] chunk = new byte[CHUNK];
			int n;
			while ((n = read(in, chunk, arrived)) >= 0) {
				if (this.buffered.addAndGet(n) > this.bufferBytes) {
					this.buffered.addAndGet(-n);
					refuse(response, HttpStatus.SERVICE_UNAVAILABLE, "Service busy",
							"The service is reading too many request bodies; retry after "
									+ ApiErrors.RETRY_AFTER_SECONDS + " s");
					return;
				}
				charged += n;
				body.write(chunk, 0, n);
			}
			chain.doFilter(new ReadRequest(request, body.toByteArray()), response);
		}
		catch (IOException ex) {
			answerFailedRead(response, ex);
		}
		finally {
			this.buffered.addAndGet(-charged);
		}
	}

	/**
	 * Answers a body that could not be read, if the connection still can carry an answer:
	 * 408 for one that did not arrive in time (the whole body's bound, or Tomcat's
	 * connection timeout on one read), 413 for one larger than the limit, 400 for one cut
	 * short.
	 */
	private static void answerFailedRead(HttpServletResponse response, IOException ex) {
		try {
			if (ApiErrors.findCause(ex, BodyTimeoutException.class) != null
					|| ApiErrors.findCause(ex, SocketTimeoutException.class) != null) {
				logger.debug("408 for a body not read in time: {}", ex.getMessage());
				refuse(response, HttpStatus.REQUEST_TIMEOUT, "Request timeout",
						"The request body did not arrive in time");
			}
			else if (ApiErrors.findCause(ex, RequestBodyLimitFilter.BodyTooLargeException.class) != null) {
				refuse(response, HttpStatus.CONTENT_TOO_LARGE, "Request body too large",
						ApiErrors.findCause(ex, RequestBodyLimitFilter.BodyTooLargeException.class).getMessage());
			}
			else {
				logger.debug("400 for a body cut short: {}", ex.getMessage());
				refuse(response, HttpStatus.BAD_REQUEST, "Incomplete request", "The request body ended early");
			}
		}
		catch (IOException | IllegalStateException closed) {
			// The client is gone: nobody reads an answer.
			logger.debug("No answer to a body that could not be read: {}", closed.getMessage());
		}
	}

	/**
	 * One read, then the check of the whole body's bound: a read itself waits at most
	 * Tomcat's connection timeout.
	 */
	private int read(InputStream in, byte[] chunk, long arrived) throws IOException {
		int n = in.read(chunk);
		if (n >= 0 && System.nanoTime() - arrived > this.timeoutNanos) {
			throw new BodyTimeoutException();
		}
		return n;
	}

	private static void refuse(HttpServletResponse response, HttpStatus status, String title, String detail)
			throws IOException {
		if (response.isCommitted()) {
			return;
		}
		response.resetBuffer();
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		// What is left of the body is not read: the connection cannot carry another
		// request.
		response.setHeader(HttpHeaders.CONNECTION, "close");
		if (status == HttpStatus.SERVICE_UNAVAILABLE) {
			response.setHeader(HttpHeaders.RETRY_AFTER, ApiErrors.RETRY_AFTER_SECONDS);
		}
		response.getOutputStream()
			.print("{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status.value()
					+ ",\"detail\":\"" + detail + "\"}");
	}

	/**
	 * Counts the bytes of the bodies being read now (for tests).
	 * @return the bytes
	 */
	long buffered() {
		return this.buffered.get();
	}

	/**
	 * The whole body did not arrive within the bound.
	 */
	static final class BodyTimeoutException extends IOException {

		BodyTimeoutException() {
			super("The request body did not arrive in time");
		}

	}

	/**
	 * The request with its body read: its stream and reader read the bytes.
	 */
	private static final class ReadRequest extends HttpServletRequestWrapper {

		private final byte[] body;

		ReadRequest(HttpServletRequest request, byte[] body) {
			super(request);
			this.body = body;
		}

		@Override
		public ServletInputStream getInputStream() {
			ByteArrayInputStream in = new ByteArrayInputStream(this.body);
			return new ServletInputStream() {

				@Override
				public int read() {
					return in.read();
				}

				@Override
				public int read(byte[] buffer, int offset, int length) {
					return in.read(buffer, offset, length);
				}

				@Override
				public boolean isFinished() {
					return in.available() == 0;
				}

				@Override
				public boolean isReady() {
					return true;
				}

				@Override
				public void setReadListener(ReadListener listener) {
					throw new UnsupportedOperationException("The body was read already");
				}

			};
		}

		@Override
		public BufferedReader getReader() {
			String encoding = getCharacterEncoding();
			Charset charset = (encoding != null) ? Charset.forName(encoding) : StandardCharsets.ISO_8859_1;
			return new BufferedReader(new InputStreamReader(getInputStream(), charset));
		}

	}

}
