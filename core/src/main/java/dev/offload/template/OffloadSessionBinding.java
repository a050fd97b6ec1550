package dev.offload.template;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.offload.OffloadSession;

/**
 * The {@link OffloadSession} bound to the current thread: an {@link Offload @Offload}
 * call binds its session for the call's duration and {@link OffloadTemplate} joins it, as
 * Spring's {@code TransactionSynchronizationManager} holds the connection that
 * {@code JdbcTemplate} joins.
 * <p>
 * Each {@link #bind(OffloadSession)} returns a {@link Binding} that puts back what was
 * bound before it, so scopes nest ({@link Propagation#REQUIRES_NEW} inside another call).
 * A binding that is never closed leaves its session bound to the thread for the thread's
 * later work: close it in a {@code finally} block or with try-with-resources, on the
 * thread that opened it.
 * <p>
 * To use a session in a continuation on another thread, bind it there for the
 * continuation: <pre>{@code
 * try (var binding = OffloadSessionBinding.bind(session)) {
 *     template.execute((s) -> ...);   // joins session
 * }
 * }</pre>
 */
public final class OffloadSessionBinding {

	private static final ThreadLocal<OffloadSession> current = new ThreadLocal<>();

	private OffloadSessionBinding() {
	}

	/**
	 * Returns the session bound to the current thread.
	 * @return the session, or empty if none is bound
	 */
	public static Optional<OffloadSession> currentSession() {
		return Optional.ofNullable(current.get());
	}

	static OffloadSession get() {
		return current.get();
	}

	/**
	 * Binds a session to the current thread until the returned binding is closed.
	 * @param session the session, or {@code null} to bind none (suspending the bound one)
	 * @return the binding, which restores the previous session when closed
	 * @throws IllegalArgumentException if the session is closed
	 */
	public static Binding bind(@Nullable OffloadSession session) {
		if (session != null && session.isClosed()) {
			throw new IllegalArgumentException("Cannot bind " + session + ": it is closed");
		}
		Binding binding = new Binding(current.get(), session);
		set(session);
		return binding;
	}

	private static void set(@Nullable OffloadSession session) {
		// Null rather than removed: a thread that binds sessions keeps its one entry,
		// instead of creating it and expunging it again around every session (a removed
		// entry is created anew, empty, by the next get).
		current.set(session);
	}

	/**
	 * One binding of a session to a thread; closing it binds the previous session again.
	 */
	public static final class Binding implements AutoCloseable {

		private final Thread thread = Thread.currentThread();

		private final @Nullable OffloadSession previous;

		private final @Nullable OffloadSession session;

		private boolean closed;

		private Binding(@Nullable OffloadSession previous, @Nullable OffloadSession session) {
			this.previous = previous;
			this.session = session;
		}

		/**
		 * Returns the bound session.
		 * @return the session, or {@code null} if the binding suspends the previous one
		 */
		public @Nullable OffloadSession session() {
			return this.session;
		}

		/**
		 * Returns the session bound before, which closing restores.
		 * @return the session, or {@code null}
		 */
		public @Nullable OffloadSession previous() {
			return this.previous;
		}

		/**
		 * Binds the previous session again. Closing twice is harmless.
		 * @throws IllegalStateException if called on another thread than the one that
		 * bound
		 */
		@Override
		public void close() {
			if (this.closed) {
				return;
			}
			if (Thread.currentThread() != this.thread) {
				throw new IllegalStateException("A session binding must be closed on the thread that opened it, "
						+ this.thread.getName() + ", not " + Thread.currentThread().getName());
			}
			this.closed = true;
			set(this.previous);
		}

	}

}
