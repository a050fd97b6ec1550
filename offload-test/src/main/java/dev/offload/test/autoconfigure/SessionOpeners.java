package dev.offload.test.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import dev.offload.OffloadListener;
import dev.offload.OffloadSession;

/**
 * Remembers the stack of the code that opened each session still open, and the test
 * during which it was opened, so that a leak report names the opener and blames only the
 * test that opened the session.
 */
public final class SessionOpeners implements OffloadListener {

	private final Map<OffloadSession, Opened> open = new ConcurrentHashMap<>();

	private final AtomicLong tests = new AtomicLong();

	private volatile long currentTest;

	@Override
	public void sessionOpened(OffloadSession session) {
		this.open.put(session, new Opened(this.currentTest, new Throwable(
				"Session " + session.id() + " opened here on thread " + Thread.currentThread().getName())));
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, @Nullable Throwable failure) {
		this.open.remove(session);
		synchronized (this) {
			notifyAll();
		}
	}

	/**
	 * Returns the sessions open now, each with the stack of its opener.
	 * @return the open sessions and where they were opened
	 */
	public Map<OffloadSession, Throwable> openSessions() {
		Map<OffloadSession, Throwable> sessions = new LinkedHashMap<>();
		this.open.forEach((session, opened) -> sessions.put(session, opened.stack()));
		return Map.copyOf(sessions);
	}

	/**
	 * Starts a test: the sessions opened from now on are that test's.
	 * @return the test's mark, for {@link #awaitEnd} and {@link #openedIn}
	 */
	long startTest() {
		long test = this.tests.incrementAndGet();
		this.currentTest = test;
		return test;
	}

	/**
	 * Waits until every session opened during {@code test} has ended (its work done and
	 * its stream back), or until {@code timeout} passes.
	 * @return {@code true} if none is left open
	 */
	boolean awaitEnd(long test, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this) {
			while (!openedIn(test).isEmpty()) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				wait(Math.max(1, left / 1_000_000));
			}
		}
		return true;
	}

	/**
	 * Returns the sessions opened during {@code test} and still open, each with the stack
	 * of its opener.
	 */
	Map<OffloadSession, Throwable> openedIn(long test) {
		Map<OffloadSession, Throwable> sessions = new LinkedHashMap<>();
		this.open.forEach((session, opened) -> {
			if (opened.test() == test) {
				sessions.put(session, opened.stack());
			}
		});
		return sessions;
	}

	private record Opened(long test, Throwable stack) {
	}

}
