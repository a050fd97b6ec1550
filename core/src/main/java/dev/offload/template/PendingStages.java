package dev.offload.template;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolClosedException;

/**
 * The results of calls returning a stage whose session stays open until the application's
 * own stage completes (an {@code @Offload} method returning a {@code CompletableFuture}).
 * Offload does not watch such a stage, so the registry's close, which drains this as
 * other queued work, waits for them within its await-termination and then fails those
 * left with a {@link StreamPoolClosedException}: no caller waits for ever for a stage the
 * shutdown cut short. Their sessions stay open (their streams lent, never destroyed under
 * them) until the stages complete.
 */
final class PendingStages implements DeviceRegistry.Drainable {

	private final DeviceRegistry registry;

	private final Set<Pending> pending = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean added = new AtomicBoolean();

	PendingStages(DeviceRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Tracks a result until it completes.
	 * @param result the caller's future
	 * @param session the session kept open for it
	 */
	void track(CompletableFuture<?> result, OffloadSession session) {
		if (result.isDone()) {
			return;
		}
		if (!this.added.get() && this.added.compareAndSet(false, true)) {
			// Refused while the registry closes: its sessions are then drained as any.
			this.registry.addDrainable(this);
		}
		Pending entry = new Pending(result, session.device().id(), session.id());
		this.pending.add(entry);
		result.whenComplete((value, failure) -> this.pending.remove(entry));
	}

	@Override
	public void stopAccepting() {
		// New calls are refused by the devices once they refuse new sessions.
	}

	@Override
	public boolean drain(Duration timeout) {
		List<Pending> left = List.copyOf(this.pending);
		if (left.isEmpty()) {
			return true;
		}
		try {
			CompletableFuture.allOf(left.stream().map(Pending::result).toArray(CompletableFuture[]::new))
				.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (ExecutionException ex) {
			// Each failure is its own caller's; every result is done.
			return true;
		}
		catch (TimeoutException ex) {
			// Failed below.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		boolean all = true;
		for (Pending entry : left) {
			if (entry.result()
				.completeExceptionally(new StreamPoolClosedException("Session " + entry.sessionId() + " on device "
						+ entry.deviceId() + " was shut down before its call's stage completed (shutdown " + "waited "
						+ timeout.toMillis() + " ms); the session stays open until the stage completes"))) {
				all = false;
			}
		}
		return all;
	}

	@Override
	public String toString() {
		return "PendingStages[" + this.pending.size() + " pending]";
	}

	private record Pending(CompletableFuture<?> result, int deviceId, long sessionId) {

	}

}
