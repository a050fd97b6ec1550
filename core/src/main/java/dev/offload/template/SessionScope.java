package dev.offload.template;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.SessionOptions;

/**
 * One call's relation to a session: a session it opened (and must end), one it joined, or
 * none; and the binding that makes it current for the call. The one place that applies a
 * {@link Propagation}.
 */
final class SessionScope {

	private final @Nullable OffloadSession session;

	private final boolean owned;

	private final OffloadSessionBinding.@Nullable Binding binding;

	private SessionScope(@Nullable OffloadSession session, boolean owned,
			OffloadSessionBinding.@Nullable Binding binding) {
		this.session = session;
		this.owned = owned;
		this.binding = binding;
	}

	/**
	 * Opens, joins or suspends a session as {@code attributes} say, and binds the outcome
	 * to the thread. A session it opens works for the attributes' tenant, or else the one
	 * {@code tenants} resolves.
	 * @throws IllegalSessionStateException if the bound session does not fit the
	 * propagation
	 * @throws dev.offload.NoSuchDeviceException if the attributes name a device the
	 * registry lacks
	 */
	static SessionScope enter(DeviceRegistry registry, OffloadAttributes attributes, TenantResolver tenants) {
		OffloadSession bound = OffloadSessionBinding.get();
		boolean ours = bound != null && registry.devices().contains(bound.device());
		boolean matching = ours && (attributes.anyDevice() || bound.device().id() == attributes.device());
		return switch (attributes.propagation()) {
			case REQUIRED -> matching ? joined(bound) : open(registry, attributes, tenants);
			case REQUIRES_NEW -> open(registry, attributes, tenants);
			case MANDATORY -> {
				if (!matching) {
					throw new IllegalSessionStateException(Propagation.MANDATORY,
							"No session" + (attributes.anyDevice() ? "" : " of device " + attributes.device())
									+ " is bound to thread " + Thread.currentThread().getName()
									+ " for propagation MANDATORY" + (ours ? "; the bound session is " + bound : ""));
				}
				yield joined(bound);
			}
			case SUPPORTS -> matching ? joined(bound) : none();
			case NOT_SUPPORTED -> none();
			case NEVER -> {
				if (ours) {
					throw new IllegalSessionStateException(Propagation.NEVER, bound + " is bound to thread "
							+ Thread.currentThread().getName() + " but propagation NEVER " + "runs without a session");
				}
				yield none();
			}
		};
	}

	private static SessionScope joined(OffloadSession bound) {
		return new SessionScope(bound, false, null);
	}

	private static SessionScope none() {
		return new SessionScope(null, false, OffloadSessionBinding.bind(null));
	}

	private static SessionScope open(DeviceRegistry registry, OffloadAttributes attributes, TenantResolver tenants) {
		String tenant = (attributes.tenant() != null) ? attributes.tenant() : tenants.currentTenant();
		OffloadSession session = registry.openSession(new SessionOptions(attributes.device(), attributes.priority(),
				attributes.timeout(), attributes.memoryBytes(), tenant));
		return new SessionScope(session, true, OffloadSessionBinding.bind(session));
	}

	/**
	 * Returns the call's session.
	 * @return the session, or {@code null} if the call runs without one
	 */
	@Nullable OffloadSession session() {
		return this.session;
	}

	/** The session of a call that always has one (the template's). */
	OffloadSession requiredSession() {
		return Objects.requireNonNull(this.session, "the call runs without a session");
	}

	/**
	 * Tells whether the call opened its session, and so ends it.
	 * @return {@code true} if the session is the call's own
	 */
	boolean owned() {
		return this.owned;
	}

	/**
	 * Restores the binding from before the call. Harmless twice.
	 */
	void unbind() {
		if (this.binding != null) {
			this.binding.close();
		}
	}

	/**
	 * Ends a call that returned: unbinds, and closes an owned session (waiting for its
	 * work).
	 * @throws RuntimeException the failure of the session's work, if nothing reported it
	 * yet
	 */
	void close() {
		unbind();
		if (this.owned) {
			requiredSession().close();
		}
	}

	/**
	 * Ends a call that threw: unbinds, and closes an owned session, adding a failure of
	 * its work to {@code failure}. The stream is discarded if the work failed.
	 * @param failure what the call threw
	 */
	void closeAfter(Throwable failure) {
		unbind();
		if (this.owned) {
			try {
				requiredSession().close();
			}
			catch (Throwable closeFailure) {
				suppress(failure, closeFailure);
			}
		}
	}

	/**
	 * Unbinds and closes an owned session without blocking.
	 * @return completed when the session's work is done and its stream is back (at once
	 * if not owned)
	 */
	CompletableFuture<Void> closeAsync() {
		unbind();
		return this.owned ? requiredSession().closeAsync() : CompletableFuture.completedFuture(null);
	}

	/**
	 * Unbinds, and closes the owned session without blocking once {@code stage}
	 * completes; only for an owned session.
	 * @return a future with the stage's outcome, completed after the session's work is
	 * done and its stream is back
	 */
	<T> CompletableFuture<T> closeAfter(CompletionStage<T> stage) {
		unbind();
		OffloadSession session = requiredSession();
		if (stage instanceof CompletableFuture<T> done && done.isDone() && !done.isCompletedExceptionally()) {
			// Closed now: the result is made by the session's future, so that a thread
			// that waits for it publishes that future itself instead of being woken by
			// the completion executor.
			T value = done.join();
			return relay(session.closeAsync(), value);
		}
		CompletableFuture<T> result = new CompletableFuture<>();
		stage.whenComplete((value, failure) -> {
			CompletableFuture<Void> closed;
			try {
				closed = session.closeAsync();
			}
			catch (RuntimeException | Error ex) {
				// Thrown here it would be lost in the stage, and the caller
				// would wait for ever.
				closed = CompletableFuture.failedFuture(ex);
			}
			closed.whenComplete((ignored, closeFailure) -> settle(result, value, failure, closeFailure));
		});
		return result;
	}

	private static <T> void settle(CompletableFuture<T> result, @Nullable T value, @Nullable Throwable failure,
			@Nullable Throwable closeFailure) {
		if (failure != null) {
			suppress(failure, closeFailure);
			result.completeExceptionally(failure);
		}
		else if (closeFailure != null) {
			result.completeExceptionally(closeFailure);
		}
		else {
			result.complete(value);
		}
	}

	/**
	 * Bounds the future of an owned session's work by the session's deadline; a joined
	 * session's deadline is its owner's to enforce.
	 */
	<T> CompletableFuture<T> withinDeadline(CompletableFuture<T> work) {
		return this.owned ? requiredSession().withinDeadline(work) : work;
	}

	/**
	 * Returns a future completed with {@code value} when {@code done} completes, or with
	 * its failure unwrapped.
	 */
	static <T> CompletableFuture<T> relay(CompletableFuture<?> done, T value) {
		// Made by done: a thread that waits for it publishes done's outcome itself.
		CompletableFuture<T> result = done.newIncompleteFuture();
		done.whenComplete((ignored, failure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(value);
			}
		});
		return result;
	}

	/**
	 * Adds {@code secondary} to {@code primary}'s suppressed exceptions unless it is
	 * already part of it.
	 */
	static void suppress(Throwable primary, @Nullable Throwable secondary) {
		if (secondary == null) {
			return;
		}
		for (Throwable cause = primary; cause != null; cause = cause.getCause()) {
			if (cause == secondary) {
				return;
			}
			for (Throwable suppressed : cause.getSuppressed()) {
				if (suppressed == secondary) {
					return;
				}
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		primary.addSuppressed(secondary);
	}

}
