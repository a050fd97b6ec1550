package dev.offload.backend.host;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.spi.BackendEvent;

/**
 * An emulated event: each record is a generation; the event is complete when its last
 * recorded generation is.
 */
final class HostEvent implements BackendEvent {

	private final HostDevice device;

	private long recorded;

	private long completed;

	private @Nullable BackendException failure;

	private @Nullable List<Waiter> waiters;

	HostEvent(HostDevice device) {
		this.device = device;
	}

	synchronized long recorded() {
		return ++this.recorded;
	}

	synchronized long lastRecorded() {
		return this.recorded;
	}

	void complete(long generation, @Nullable BackendException error) {
		List<Runnable> ready = new ArrayList<>();
		synchronized (this) {
			if (generation > this.completed) {
				this.completed = generation;
				this.failure = error;
			}
			if (this.waiters != null) {
				this.waiters.removeIf((waiter) -> {
					if (waiter.generation <= this.completed) {
						ready.add(waiter.callback);
						return true;
					}
					return false;
				});
			}
			notifyAll();
		}
		ready.forEach(Runnable::run);
	}

	/**
	 * Registers {@code callback} to run when {@code generation} completes, unless it
	 * already has.
	 * @return {@code true} if registered (not yet complete)
	 */
	synchronized boolean whenComplete(long generation, Runnable callback) {
		if (generation <= this.completed) {
			return false;
		}
		if (this.waiters == null) {
			this.waiters = new ArrayList<>();
		}
		this.waiters.add(new Waiter(generation, callback));
		return true;
	}

	@Override
	public synchronized boolean query() {
		this.device.checkFault("eventQuery");
		boolean done = this.completed >= this.recorded;
		if (done && this.failure != null) {
			throw this.failure;
		}
		return done;
	}

	@Override
	public void synchronize() {
		boolean interrupted = false;
		synchronized (this) {
			long target = this.recorded;
			while (this.completed < target) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					// As the driver's: the wait goes on, the interrupt is set again
					// after.
					interrupted = true;
				}
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		query();
	}

	@Override
	public Object handle() {
		return this;
	}

	@Override
	public void destroy() {
	}

	private record Waiter(long generation, Runnable callback) {

	}

}
