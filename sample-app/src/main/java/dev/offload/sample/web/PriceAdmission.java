package dev.offload.sample.web;

import java.time.Duration;
import java.util.concurrent.Semaphore;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Admits price requests before their bodies are read: at most {@code maxInFlight} are
 * parsed, validated and priced at once, and one more is refused at once with 503 and
 * {@code Retry-After} ({@link ShedException}). The 1 s price deadline starts when a
 * stream is asked for; without this bound, requests would wait for a CPU to parse their
 * bodies and for the device's queue, unbounded, before the deadline even started.
 */
final class PriceAdmission implements HandlerInterceptor {

	private static final String ADMITTED = PriceAdmission.class.getName() + ".admitted";

	private static final String DEADLINE = PriceAdmission.class.getName() + ".deadline";

	private final long deadlineNanos;

	private final Semaphore permits;

	private final int maxInFlight;

	PriceAdmission(int maxInFlight, Duration deadline) {
		if (maxInFlight < 1) {
			throw new IllegalArgumentException("sample.price.max-in-flight must be at least 1, was " + maxInFlight);
		}
		this.maxInFlight = maxInFlight;
		this.deadlineNanos = deadline.toNanos();
		this.permits = new Semaphore(maxInFlight);
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		if (!this.permits.tryAcquire()) {
			throw new ShedException("All " + this.maxInFlight + " price requests in flight");
		}
		request.setAttribute(ADMITTED, Boolean.TRUE);
		request.setAttribute(DEADLINE, System.nanoTime() + this.deadlineNanos);
		return true;
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
	 * What is left of an admitted request's deadline, which started when it was admitted:
	 * parsing and validating its body count against it, not only the GPU work.
	 * @param request the request
	 * @return the time left, zero or negative once it passed, {@code null} if the request
	 * was not admitted here
	 */
	static Duration remaining(HttpServletRequest request) {
		Object deadline = request.getAttribute(DEADLINE);
		return (deadline instanceof Long nanos) ? Duration.ofNanos(nanos - System.nanoTime()) : null;
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
