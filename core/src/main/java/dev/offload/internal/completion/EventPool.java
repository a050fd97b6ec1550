package dev.offload.internal.completion;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;

/**
 * The events of one device, created on demand and reused, because creating an event costs
 * more than recording one. Sessions borrow events for {@code recordEvent()} and
 * {@code whenDone()} and give them back when they end, or the completion thread does once
 * it saw one reached.
 */
final class EventPool {

	private final BackendDevice backendDevice;

	private final ConcurrentLinkedDeque<BackendEvent> idle = new ConcurrentLinkedDeque<>();

	private final AtomicInteger inUse = new AtomicInteger();

	private final AtomicLong created = new AtomicLong();

	private volatile boolean closed;

	EventPool(BackendDevice backendDevice) {
		this.backendDevice = backendDevice;
	}

	BackendEvent borrow() {
		BackendEvent event = this.idle.pollFirst();
		if (event == null) {
			event = this.backendDevice.createEvent();
			this.created.incrementAndGet();
		}
		this.inUse.incrementAndGet();
		return event;
	}

	void release(BackendEvent event) {
		this.inUse.decrementAndGet();
		if (this.closed) {
			event.destroy();
			return;
		}
		this.idle.offerFirst(event);
	}

	/**
	 * Returns the events lent now.
	 * @return the number in use
	 */
	int inUse() {
		return this.inUse.get();
	}

	/**
	 * Returns the events created since the start.
	 * @return the number created
	 */
	long created() {
		return this.created.get();
	}

	void close() {
		this.closed = true;
		BackendEvent event;
		while ((event = this.idle.pollFirst()) != null) {
			event.destroy();
		}
	}

}
