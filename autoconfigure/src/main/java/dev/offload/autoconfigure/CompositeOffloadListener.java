package dev.offload.autoconfigure;

import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.Device;
import dev.offload.OffloadListener;
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;

/**
 * An {@link OffloadListener} that calls several listeners in order, such as every {@code OffloadListener} bean, so
 * that metrics, tracing and leak detection each plug in their own. A listener that throws is logged and the next one
 * is still called.
 */
public final class CompositeOffloadListener implements OffloadListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositeOffloadListener.class);

	private final List<OffloadListener> listeners;

	/**
	 * Creates a composite.
	 * @param listeners the listeners, called in this order
	 */
	public CompositeOffloadListener(List<? extends OffloadListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Returns a listener that calls all of {@code listeners}: {@link OffloadListener#NONE} for none, else a
	 * composite.
	 * @param listeners the listeners, in order
	 * @return the listener
	 */
	public static OffloadListener of(List<? extends OffloadListener> listeners) {
		return listeners.isEmpty() ? OffloadListener.NONE : new CompositeOffloadListener(listeners);
	}

	/**
	 * Returns the listeners.
	 * @return the listeners, in calling order
	 */
	public List<OffloadListener> listeners() {
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
	public void sessionClosed(OffloadSession session, long durationNanos, Throwable failure) {
		each((listener) -> listener.sessionClosed(session, durationNanos, failure));
	}

	@Override
	public void deviceFailed(Device device, Throwable cause) {
		each((listener) -> listener.deviceFailed(device, cause));
	}

	private void each(Consumer<OffloadListener> call) {
		for (OffloadListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Offload listener {} failed: {}", listener, ex.toString());
			}
		}
	}

	@Override
	public String toString() {
		return "CompositeOffloadListener" + this.listeners;
	}

}
