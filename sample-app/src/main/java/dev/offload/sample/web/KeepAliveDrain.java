package dev.offload.sample.web;

import java.io.IOException;
import java.time.Duration;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.coyote.ProtocolHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Closes kept-alive connections before the web server's graceful shutdown pauses Tomcat.
 * A paused Tomcat finishes the requests in flight but closes a kept-alive connection on
 * which the next request arrives without answering it: a client that reuses an idle
 * connection at that moment loses its request. So, at shutdown, one phase before the
 * graceful shutdown ({@link WebServerApplicationContext#GRACEFUL_SHUTDOWN_PHASE} + 1),
 * this stops accepting connections (Tomcat's {@code closeServerSocketGraceful}), keeps
 * serving those open, answers each of their requests with {@code Connection: close} (so
 * every request that arrives is answered and its connection then closed), and waits up to
 * {@code sample.shutdown.keep-alive-drain} for the idle ones to reach their keep-alive
 * timeout and close. Then the graceful shutdown proceeds with no kept-alive connection
 * left to lose a request.
 */
final class KeepAliveDrain extends OncePerRequestFilter
		implements SmartLifecycle, ApplicationListener<WebServerInitializedEvent> {

	private static final Logger logger = LoggerFactory.getLogger(KeepAliveDrain.class);

	private final Duration drain;

	private volatile ProtocolHandler protocol;

	private volatile boolean running;

	private volatile boolean draining;

	private volatile boolean closedEveryConnection;

	KeepAliveDrain(Duration drain) {
		if (drain.isNegative()) {
			throw new IllegalArgumentException("sample.shutdown.keep-alive-drain must not be negative, was " + drain);
		}
		this.drain = drain;
	}

	@Override
	public void onApplicationEvent(WebServerInitializedEvent event) {
		// The application's server only: the management server (its own namespace) is
		// for probes and scrapers.
		if (event.getApplicationContext().getServerNamespace() == null
				&& event.getWebServer() instanceof TomcatWebServer tomcat) {
			this.protocol = tomcat.getTomcat().getConnector().getProtocolHandler();
		}
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (this.draining) {
			response.setHeader(HttpHeaders.CONNECTION, "close");
		}
		chain.doFilter(request, response);
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.draining = true;
		ProtocolHandler handler = this.protocol;
		if (handler != null) {
			handler.closeServerSocketGraceful();
			long left = handler.awaitConnectionsClose(this.drain.toMillis());
			this.closedEveryConnection = left > 0;
			if (left <= 0) {
				logger.info("Kept-alive connections still open after {}; the graceful shutdown proceeds", this.drain);
			}
		}
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE + 1;
	}

	boolean isDraining() {
		return this.draining;
	}

	/**
	 * Whether the drain saw every connection close within
	 * {@code sample.shutdown.keep-alive-drain}; false before it ran.
	 */
	boolean closedEveryConnection() {
		return this.closedEveryConnection;
	}

}
