package dev.offload.sample.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fair shares of the Monte Carlo slots (the NORMAL lane's sessions on every device) among
 * clients. A client may start a job while fewer than all slots are taken and it holds
 * fewer than its share, {@code slots / contenders} (at least 1), where the contenders are
 * the clients holding a slot and those refused within the last {@code patience}: one
 * client alone may use every slot, but as soon as another is refused, the first gets no
 * new slot until it is under its share, so a client that retries after
 * {@code Retry-After} finds a slot freed for it. At most {@value #MAX_WAITING} refused
 * clients are remembered (the oldest are forgotten first), so memory stays bounded
 * whatever clients call.
 */
final class ClientShares {

	static final int MAX_WAITING = 10_000;

	private final int slots;

	private final Duration patience;

	private final Clock clock;

	private final Map<String, Integer> running = new HashMap<>();

	private final LinkedHashMap<String, Instant> waiting = new LinkedHashMap<>();

	private int taken;

	ClientShares(int slots, Duration patience, Clock clock) {
		if (slots < 1) {
			throw new IllegalArgumentException("The Monte Carlo slots must be at least 1, was " + slots);
		}
		this.slots = slots;
		this.patience = patience;
		this.clock = clock;
	}

	/**
	 * Takes a slot for the client if it is under its share.
	 * @param client the client's key
	 * @return whether the client got a slot (then {@link #release} gives it back)
	 */
	synchronized boolean tryAcquire(String client) {
		Instant now = this.clock.instant();
		forgetWaitingBefore(now.minus(this.patience));
		int held = this.running.getOrDefault(client, 0);
		if (this.taken >= this.slots || held >= share(client)) {
			this.waiting.remove(client);
			this.waiting.put(client, now);
			if (this.waiting.size() > MAX_WAITING) {
				forgetOldestWaiting();
			}
			return false;
		}
		this.waiting.remove(client);
		this.running.put(client, held + 1);
		this.taken++;
		return true;
	}

	/**
	 * Gives back a slot taken by {@link #tryAcquire}.
	 * @param client the client's key
	 */
	synchronized void release(String client) {
		Integer held = this.running.get(client);
		if (held == null) {
			throw new IllegalStateException("Client " + client + " holds no Monte Carlo slot");
		}
		if (held == 1) {
			this.running.remove(client);
		}
		else {
			this.running.put(client, held - 1);
		}
		this.taken--;
	}

	/**
	 * Marks the client as waiting, as a refusal by {@link #tryAcquire} does: for a slot
	 * taken but then refused by the lane.
	 * @param client the client's key
	 */
	synchronized void refused(String client) {
		this.waiting.remove(client);
		this.waiting.put(client, this.clock.instant());
	}

	synchronized int held(String client) {
		return this.running.getOrDefault(client, 0);
	}

	private int share(String client) {
		int contenders = this.waiting.size();
		for (String holder : this.running.keySet()) {
			if (!this.waiting.containsKey(holder)) {
				contenders++;
			}
		}
		if (!this.waiting.containsKey(client) && !this.running.containsKey(client)) {
			contenders++;
		}
		return Math.max(1, this.slots / contenders);
	}

	private void forgetWaitingBefore(Instant oldest) {
		// Insertion order is the order of the last refusal: the stale ones come first.
		Iterator<Instant> refusals = this.waiting.values().iterator();
		while (refusals.hasNext() && refusals.next().isBefore(oldest)) {
			refusals.remove();
		}
	}

	private void forgetOldestWaiting() {
		Iterator<String> clients = this.waiting.keySet().iterator();
		clients.next();
		clients.remove();
	}

}
