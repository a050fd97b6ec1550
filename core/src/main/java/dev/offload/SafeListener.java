package dev.offload;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls an {@link OffloadListener} and logs what it throws, so that metrics never break a pool or its threads.
 */
final class SafeListener implements OffloadListener {

	private static final Logger logger = LoggerFactory.getLogger(SafeListener.class);

	private final OffloadListener delegate;

	SafeListener(OffloadListener delegate) {
		this.delegate = (delegate != null) ? delegate : OffloadListener.NONE;
	}

	@Override
	public void streamBorrowed(Device device, StreamPriority priority, long waitNanos) {
		safely(() -> this.delegate.streamBorrowed(device, priority, waitNanos));
	}

	@Override
	public void borrowTimedOut(Device device) {
		safely(() -> this.delegate.borrowTimedOut(device));
	}

	@Override
	public void streamDiscarded(Device device, Throwable cause) {
		safely(() -> this.delegate.streamDiscarded(device, cause));
	}

	@Override
	public void sessionOpened(OffloadSession session) {
		safely(() -> this.delegate.sessionOpened(session));
	}

	@Override
	public void sessionClosed(OffloadSession session, long durationNanos, Throwable failure) {
		safely(() -> this.delegate.sessionClosed(session, durationNanos, failure));
	}

	@Override
	public void deviceFailed(Device device, Throwable cause) {
		safely(() -> this.delegate.deviceFailed(device, cause));
	}

	private static void safely(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("An OffloadListener threw; ignored", ex);
		}
	}

}
