package dev.offload.internal.completion;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.SessionDeadline;
import dev.offload.internal.VirtualThreads;
import dev.offload.spi.BackendStream;

/**
 * How a thread waits for a session's work: until a stream is idle (or an event reached),
 * with or without a deadline, on a platform or a virtual thread. The session decides what
 * a wait means for it (a failure recorded, a session handed to the completion thread on
 * expiry); this class only waits.
 * <p>
 * A platform thread without a deadline synchronizes in the driver (the fastest wait). A
 * virtual thread must not: a blocking native call holds its carrier for the whole wait,
 * so a few hundred waiting requests would stall every other virtual thread. It parks
 * instead, and the device's completion thread, which polls the stream, wakes it. A wait
 * with a deadline goes through the completion thread too, so that it is bounded.
 */
final class SessionWaits {

	private static volatile boolean virtualThreadWaitsInitialized;

	private SessionWaits() {
	}

	/**
	 * Waits until {@code backend} is idle, throwing its work's failure.
	 * @param completions the completion engine of the stream's device, whose thread wakes
	 * a virtual thread
	 * @param backend the stream
	 */
	static void awaitIdle(Completions completions, BackendStream backend) {
		if (!VirtualThreads.isCurrentThreadVirtual()) {
			backend.synchronize();
			return;
		}
		parkUntil(completions, backend::query);
	}

	/**
	 * Waits until {@code backend} is idle or the deadline passes, throwing its work's
	 * failure. Work that finishes just as the deadline passes counts as done.
	 * @param completions the completion engine of the stream's device, whose thread
	 * watches the stream
	 * @param backend the stream
	 * @param deadline the deadline
	 * @return {@code true} when the stream is idle, {@code false} when the deadline
	 * passed first (the completion thread no longer watches the stream for this wait)
	 * @throws InterruptedException if the thread was interrupted (the watch is cancelled)
	 */
	static boolean awaitIdle(Completions completions, BackendStream backend, SessionDeadline deadline)
			throws InterruptedException {
		if (backend.query()) {
			return true;
		}
		CompletableFuture<Void> idle = new CompletableFuture<>();
		completions.poller().submit(new IdleWatch(completions, backend::query, idle));
		try {
			long remaining = deadline.remainingNanos();
			if (remaining <= 0) {
				throw new TimeoutException();
			}
			idle.get(remaining, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (TimeoutException ex) {
			if (idle.cancel(false)) {
				return false;
			}
			// The work finished just as the deadline passed: report its outcome.
			awaitDone(completions, idle);
			return true;
		}
		catch (ExecutionException ex) {
			throw completions.unchecked(ex.getCause());
		}
		catch (InterruptedException ex) {
			idle.cancel(false);
			throw ex;
		}
	}

	/**
	 * Parks the calling thread until {@code done} answers {@code true}, polled by the
	 * device's completion thread, or until {@code leave} completes: the wait of a joiner
	 * that finishes its session itself, which it leaves when the future it waits for
	 * completes otherwise. Not cut short by an interrupt.
	 * @param completions the device's completion engine, whose thread polls
	 * @param done whether the awaited work is done; may throw its failure
	 * @param leave completes when the caller no longer waits for the work
	 * @return {@code true} if the work is done, {@code false} if {@code leave} completed
	 * first
	 */
	static boolean awaitIdleUnless(Completions completions, BooleanSupplier done, CompletableFuture<?> leave) {
		if (done.getAsBoolean()) {
			return true;
		}
		CompletableFuture<Void> idle = new CompletableFuture<>();
		completions.poller().submit(new IdleWatch(completions, done, idle));
		CompletableFuture.anyOf(idle, leave).exceptionally((failure) -> null).join();
		if (!idle.isDone() && idle.cancel(false)) {
			// The watch, finding its future done, leaves the poller.
			return false;
		}
		awaitDone(completions, idle);
		return true;
	}

	/**
	 * Parks the calling thread until {@code done} answers {@code true}, polled by the
	 * device's completion thread; throws what {@code done} throws. The wait of a virtual
	 * thread that leaves its carrier free.
	 * @param completions the device's completion engine, whose thread polls
	 * @param done whether the awaited work is done; may throw its failure
	 */
	static void parkUntil(Completions completions, BooleanSupplier done) {
		if (done.getAsBoolean()) {
			return;
		}
		CompletableFuture<Void> reached = new CompletableFuture<>();
		completions.poller().submit(new IdleWatch(completions, done, reached));
		// join() parks without pinning the carrier and, as the driver's synchronize, is
		// not cut short by an interrupt (the interrupt stays set).
		awaitDone(completions, reached);
	}

	/**
	 * JFR's throwable tracer (Java 22+). A binding's query may throw where work still
	 * runs (JCuda in its exceptions mode); with a flight recording on, the JVM's first
	 * exception initializes the tracer on whichever thread throws it.
	 */
	private static final String THROWABLE_TRACER = "jdk.internal.event.ThrowableTracer";

	/**
	 * Initializes the classes a virtual thread's wait goes through. Thousands of virtual
	 * threads that wait for the first time at once would otherwise queue on those
	 * classes' initialization, and a virtual thread waiting for a class initializer pins
	 * its carrier (JFR reports each as {@code jdk.VirtualThreadPinned}). A no-op once
	 * done.
	 */
	static void initializeVirtualThreadWaits() {
		if (virtualThreadWaitsInitialized || !VirtualThreads.isSupported()) {
			return;
		}
		List<String> names = new ArrayList<>(List.of(IdleWatch.class.getName(), CompletionPoller.class.getName(),
				CompletionFuture.class.getName(), "java.util.function.BooleanSupplier",
				"java.util.concurrent.CompletableFuture", "java.util.concurrent.CompletableFuture$Signaller",
				"java.util.concurrent.CompletionException", THROWABLE_TRACER));
		for (Class<?> nested : CompletionPoller.class.getDeclaredClasses()) {
			names.add(nested.getName());
		}
		for (String name : names) {
			try {
				Class.forName(name, true, SessionWaits.class.getClassLoader());
			}
			catch (ClassNotFoundException | LinkageError | SecurityException ex) {
				// A runtime without that JDK class, or that denies it: nothing to do.
			}
		}
		virtualThreadWaitsInitialized = true;
	}

	private static void awaitDone(Completions completions, CompletableFuture<Void> idle) {
		try {
			idle.join();
		}
		catch (CompletionException ex) {
			throw completions.unchecked(ex.getCause());
		}
	}

	/**
	 * Completes a future when a stream is idle (or an event reached), for a wait bounded
	 * by a deadline or the wait of a virtual thread. The future has no dependent stages
	 * but its waiter's, so it is completed on the completion thread itself.
	 */
	private static final class IdleWatch implements CompletionPoller.Task {

		private final Completions completions;

		private final BooleanSupplier done;

		private final CompletableFuture<Void> idle;

		IdleWatch(Completions completions, BooleanSupplier done, CompletableFuture<Void> idle) {
			this.completions = completions;
			this.done = done;
			this.idle = idle;
		}

		@Override
		public boolean poll() {
			if (this.idle.isDone()) {
				// The waiter gave up (its deadline passed) and the session's close task
				// watches the stream now.
				return true;
			}
			try {
				if (!this.done.getAsBoolean()) {
					return false;
				}
				this.idle.complete(null);
			}
			catch (RuntimeException ex) {
				this.idle.completeExceptionally(ex);
			}
			return true;
		}

		@Override
		public void abandon(String reason) {
			this.idle.completeExceptionally(
					this.completions.shutDown("A session's wait for its work was cut short: " + reason));
		}

	}

}
