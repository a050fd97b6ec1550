package dev.offload.test.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.offload.OffloadListener;
import dev.offload.OffloadSession;

/**
 * Remembers the stack of the code that opened each session still open, so that a leak
 * report names the opener.
 */
public final class SessionOpeners implements OffloadListener {

	private final Map<OffloadSession, Throwable> open = new ConcurrentHashMap<>();

	@Override
	public void sessionOpened(OffloadSession session) {
		this.open.put(session, new Throwable(
				"Session " + session.id() + " opened here on thread " + Thread.currentThread().getName()));
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, @Nullable Throwable failure) {
		this.open.remove(session);
	}

	/**
	 * Returns the sessions open now, each with the stack of its opener.
	 * @return the open sessions and where they were opened
	 */
	public Map<OffloadSession, Throwable> openSessions() {
		return Map.copyOf(this.open);
	}

	/**
	 * Forgets every session, so that one test's leak is not reported again by the next
	 * test.
	 * @return the sessions that were open
	 */
	List<OffloadSession> clear() {
		List<OffloadSession> sessions = List.copyOf(this.open.keySet());
		this.open.clear();
		return sessions;
	}

}
