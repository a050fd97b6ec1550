package dev.offload;

import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.health.GpuFault;

/**
 * An {@link OffloadListener} that calls several listeners in order, so that metrics,
 * tracing and leak detection each plug in their own, and isolates them: what a listener
 * throws is logged and dropped, the next one is still called, and a pool or its threads
 * never see it. Every device calls its listener through one;
 * {@link OffloadListener#composite(List)} makes one.
 */
final class CompositeOffloadListener implements OffloadListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositeOffloadListener.class);

	private final List<OffloadListener> listeners;

	/**
	 * Creates a composite.
	 * @param listeners the listeners, called in this order
	 */
	CompositeOffloadListener(List<? extends OffloadListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Returns a listener that calls all of {@code listeners}, each isolated from the
	 * others' exceptions: {@link OffloadListener#NONE} for none, else a composite.
	 * @param listeners the listeners, in order
	 * @return the listener
	 */
	static OffloadListener of(List<? extends OffloadListener> listeners) {
		return listeners.isEmpty() ? OffloadListener.NONE : new CompositeOffloadListener(listeners);
	}

	/**
	 * Returns a listener that calls {@code listener} and isolates what it throws.
	 * @param listener the listener, or {@code null} for none
	 * @return {@link OffloadListener#NONE} for none, the listener itself if it is already
	 * a composite, else a composite of it
	 */
	static OffloadListener isolating(OffloadListener listener) {
		if (listener == null || listener == OffloadListener.NONE || listener instanceof CompositeOffloadListener) {
			return (listener != null) ? listener : OffloadListener.NONE;
		}
		return new CompositeOffloadListener(List.of(listener));
	}

	/**
	 * Returns the listeners.
	 * @return the listeners, in calling order
	 */
	List<OffloadListener> listeners() {
		return this.listeners;
	}

	@Override
	public void streamBorrowed(Device device, StreamPriority priority, long waitNanos) {
		each((listener) -> listener.streamBorrowed(device, priority, waitNanos));
	}

	@Override
	public void borrowTimedOut(Device device) {
		each((listener) -> listener.borrowTimedOut(device));
	}

	@Override
	public void streamDiscarded(Device device, Throwable cause) {
		each((listener) -> listener.streamDiscarded(device, cause));
	}

	@Override
	public void sessionOpened(OffloadSession session) {
		each((listener) -> listener.sessionOpened(session));
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, @Nullable Throwable failure) {
		each((listener) -> listener.sessionClosed(session, durationNanos, failure));
	}

	@Override
	public void libraryCalled(OffloadSession session, String library, String operation, long nanos,
			@Nullable Throwable failure) {
		each((listener) -> listener.libraryCalled(session, library, operation, nanos, failure));
	}

	@Override
	public void deviceFailed(Device device, Throwable cause) {
		each((listener) -> listener.deviceFailed(device, cause));
	}

	@Override
	public void gpuFault(Device device, GpuFault fault) {
		each((listener) -> listener.gpuFault(device, fault));
	}

	private void each(Consumer<OffloadListener> call) {
		for (OffloadListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Offload listener {} threw; ignored", listener, ex);
			}
		}
	}

	@Override
	public String toString() {
		return "CompositeOffloadListener" + this.listeners;
	}

}
