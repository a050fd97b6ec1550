package dev.offload.sample.web;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Admits price requests once their bodies have arrived ({@link RequestBodyReader} reads
 * them, within a bound, holding no place), before they are parsed: at most
 * {@code maxInFlight} are parsed, validated and priced at once; one more waits up to
 * {@code wait} for a place (a burst of short requests passes), then is refused with 503
 * and {@code Retry-After} ({@link ShedException}). A client that trickles its body holds
 * no place, so it cannot shut others out. The price deadline starts when the request
 * arrives, so reading the body and the wait count against it; without this bound,
 * requests would wait for a CPU to parse their bodies and for the device's queue,
 * unbounded, before the deadline even started.
 * <p>
 * Scenario risk requests are admitted the same way, with places and a deadline of their
 * own ({@code sample.risk.*}): a burst of them cannot take the price requests' places.
 */
final class PriceAdmission implements HandlerInterceptor {

	private static final String ADMITTED = PriceAdmission.class.getName() + ".admitted";

	private static final String DEADLINE = PriceAdmission.class.getName() + ".deadline";

	private final long deadlineNanos;

	private final Semaphore permits;

	private final int maxInFlight;

	private final long waitNanos;

	private final String requests;

	PriceAdmission(int maxInFlight, Duration deadline, Duration wait) {
		this("sample.price", "price requests", maxInFlight, deadline, wait);
	}

	/**
	 * Admits one kind of request.
	 * @param settings the prefix of the settings, for their errors ({@code sample.price})
	 * @param requests what is admitted, for the 503's log ({@code price requests})
	 * @param maxInFlight the requests at once
	 * @param deadline each request's deadline, from its arrival
	 * @param wait how long a request waits for a place
	 */
	PriceAdmission(String settings, String requests, int maxInFlight, Duration deadline, Duration wait) {
		if (maxInFlight < 1) {
			throw new IllegalArgumentException(settings + ".max-in-flight must be at least 1, was " + maxInFlight);
		}
		if (wait.isNegative()) {
			throw new IllegalArgumentException(settings + ".admission-wait must not be negative, was " + wait);
		}
		this.requests = requests;
		this.maxInFlight = maxInFlight;
		this.deadlineNanos = deadline.toNanos();
		// Never longer than the deadline, which the wait counts against.
		this.waitNanos = Math.min(wait.toNanos(), this.deadlineNanos);
		// Fair: a request that waits is admitted before one that arrives later.
		this.permits = new Semaphore(maxInFlight, true);
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		Object stamp = request.getAttribute(RequestBodyReader.ARRIVED);
		long arrived = (stamp instanceof Long at) ? at : System.nanoTime();
		if (!admit(arrived + this.deadlineNanos)) {
			throw new ShedException("All " + this.maxInFlight + " " + this.requests + " in flight");
		}
		request.setAttribute(ADMITTED, Boolean.TRUE);
		request.setAttribute(DEADLINE, arrived + this.deadlineNanos);
		return true;
	}

	private boolean admit(long deadline) {
		if (this.permits.tryAcquire()) {
			return true;
		}
		// Never past the deadline, which the wait counts against.
		long wait = Math.min(this.waitNanos, deadline - System.nanoTime());
		try {
			return wait > 0 && this.permits.tryAcquire(wait, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
			Exception ex) {
		if (request.getAttribute(ADMITTED) != null) {
			request.removeAttribute(ADMITTED);
			this.permits.release();
		}
	}

	/**
	 * What is left of an admitted request's deadline, which started when it arrived:
	 * reading, parsing and validating its body count against it, not only the GPU work.
	 * @param request the request
	 * @return the time left, zero or negative once it passed, {@code null} if the request
	 * was not admitted here
	 */
	static Duration remaining(HttpServletRequest request) {
		Object deadline = request.getAttribute(DEADLINE);
		return (deadline instanceof Long nanos) ? Duration.ofNanos(nanos - System.nanoTime()) : null;
	}

	/**
	 * Counts the requests waiting for a place (for tests).
	 * @return the requests waiting
	 */
	int waiting() {
		return this.permits.getQueueLength();
	}

	/**
	 * Takes every free permit, as a saturated lane would (for tests).
	 * @return the permits taken
	 */
	int drain() {
		return this.permits.drainPermits();
	}

	/**
	 * Gives permits back.
	 * @param count the permits
	 */
	void release(int count) {
		this.permits.release(count);
	}

}
