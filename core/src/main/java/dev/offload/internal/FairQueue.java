package dev.offload.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * Waiters of several tenants served by weighted fair queuing (start-time fair queuing):
 * each entry gets a virtual start and finish time when it queues, its tenant's last
 * finish or the queue's virtual time if later, plus {@code SCALE / weight}; the next
 * served is the eligible tenant's oldest entry with the least finish time, and the
 * virtual time moves to that entry's start. So while two tenants wait, one of weight 2 is
 * served twice as often as one of weight 1, whatever the number of their waiters; within
 * a tenant, first come, first served. A tenant that waits for nothing starts again at the
 * virtual time: it earns no credit while idle. Not thread-safe: its owner guards it with
 * a lock.
 *
 * @param <T> the waiters
 */
public final class FairQueue<T> {

	/** The virtual time one entry of weight 1 takes. */
	static final long SCALE = 1L << 20;

	/** Tenants without waiters kept for their last finish time before a sweep. */
	private static final int SWEEP_AT = 64;

	/**
	 * The tenants' flows, in the order they first waited: linked, so that the scans under
	 * the pool's lock walk the flows, not the table's empty buckets, and ties go to the
	 * tenant that waited first.
	 */
	private final Map<String, Flow<T>> flows = new LinkedHashMap<>();

	private long virtualTime;

	private long sequence;

	private int size;

	/**
	 * Queues a waiter at the end of its tenant's entries.
	 * @param tenant the tenant
	 * @param weight the tenant's weight, at least 1
	 * @param item the waiter
	 * @return its entry, to {@link #remove} or {@link #requeue} it
	 */
	public Entry<T> add(String tenant, int weight, T item) {
		Flow<T> flow = this.flows.computeIfAbsent(tenant, (name) -> new Flow<>());
		if (flow.entries.isEmpty() && this.flows.size() > SWEEP_AT) {
			sweep();
			this.flows.put(tenant, flow);
		}
		long start = Math.max(this.virtualTime, flow.lastFinish);
		Entry<T> entry = new Entry<>(tenant, item, start, start + SCALE / Math.max(1, weight), this.sequence++, flow);
		flow.lastFinish = entry.finish;
		flow.entries.addLast(entry);
		entry.queued = true;
		this.size++;
		return entry;
	}

	/**
	 * Puts back an entry served (or woken) without effect at the head of its tenant's
	 * entries, with its times: it keeps its place.
	 * @param entry an entry of this queue that is not queued
	 */
	public void requeue(Entry<T> entry) {
		if (entry.queued) {
			return;
		}
		entry.flow = this.flows.computeIfAbsent(entry.tenant, (name) -> new Flow<>());
		entry.flow.entries.addFirst(entry);
		entry.queued = true;
		this.size++;
	}

	/**
	 * Takes the next entry to serve among the tenants {@code eligible} accepts.
	 * @param eligible whether a waiter's tenant may be served now (under its own limit)
	 * @return the entry, or {@code null} if no eligible tenant waits
	 */
	public @Nullable Entry<T> poll(Predicate<? super T> eligible) {
		Entry<T> next = peek(eligible);
		if (next != null) {
			next.flow.entries.pollFirst();
			next.queued = false;
			this.size--;
			this.virtualTime = Math.max(this.virtualTime, next.start);
		}
		return next;
	}

	/**
	 * Returns the entry {@link #poll} would take, leaving it queued.
	 * @param eligible whether a tenant may be served now
	 * @return the entry, or {@code null}
	 */
	public @Nullable Entry<T> peek(Predicate<? super T> eligible) {
		Entry<T> best = null;
		for (Flow<T> flow : this.flows.values()) {
			Entry<T> head = flow.entries.peekFirst();
			if (head != null && (best == null || head.before(best)) && eligible.test(head.item)) {
				best = head;
			}
		}
		return best;
	}

	/**
	 * Returns the entry queued first of all, whatever its turn (for a deadline counted
	 * from the oldest waiter).
	 * @return the entry, or {@code null} if none waits
	 */
	public @Nullable Entry<T> oldest() {
		Entry<T> oldest = null;
		for (Flow<T> flow : this.flows.values()) {
			Entry<T> head = flow.entries.peekFirst();
			if (head != null && (oldest == null || head.order < oldest.order)) {
				oldest = head;
			}
		}
		return oldest;
	}

	/**
	 * Takes the next entry to serve, of any tenant.
	 * @return the entry, or {@code null} if none waits
	 */
	public @Nullable Entry<T> poll() {
		return poll((item) -> true);
	}

	/**
	 * Removes a queued entry (a waiter that gave up).
	 * @param entry the entry
	 * @return whether it was queued
	 */
	public boolean remove(Entry<T> entry) {
		if (!entry.queued) {
			return false;
		}
		entry.queued = false;
		if (entry.flow.entries.remove(entry)) {
			this.size--;
			return true;
		}
		return false;
	}

	/**
	 * Walks the queued entries in the order they would be served if every tenant stayed
	 * eligible, lazily: for waiters of more than one unit (bytes) served first fit, which
	 * serve the ones that fit with {@link ServiceOrder#take()}. A tenant's entries are
	 * queued in their service order already (as long as entries are requeued only in the
	 * order they were taken, which a queue that never requeues keeps), so the walk merges
	 * the tenants' heads: starting it costs a step per tenant, each step the logarithm of
	 * their number, and a pass that stops once nothing more fits reads no further. The
	 * queue must change only through the walk until it ends.
	 * @return the walk, next served first
	 */
	public ServiceOrder<T> serviceOrder() {
		return new ServiceOrder<>(this);
	}

	/**
	 * Returns the entries queued.
	 * @return the number
	 */
	public int size() {
		return this.size;
	}

	/**
	 * Tells whether nothing is queued.
	 * @return {@code true} if empty
	 */
	public boolean isEmpty() {
		return this.size == 0;
	}

	/**
	 * Returns the entries a tenant has queued.
	 * @param tenant the tenant
	 * @return the number
	 */
	public int size(String tenant) {
		Flow<T> flow = this.flows.get(tenant);
		return (flow != null) ? flow.entries.size() : 0;
	}

	/** Forgets tenants that wait for nothing and whose last finish the time passed. */
	private void sweep() {
		Iterator<Flow<T>> iterator = this.flows.values().iterator();
		while (iterator.hasNext()) {
			Flow<T> flow = iterator.next();
			if (flow.entries.isEmpty() && flow.lastFinish <= this.virtualTime) {
				iterator.remove();
			}
		}
	}

	/**
	 * A queued waiter and its virtual times.
	 *
	 * @param <T> the waiter
	 */
	public static final class Entry<T> {

		final String tenant;

		final T item;

		final long start;

		final long finish;

		final long order;

		boolean queued;

		Flow<T> flow;

		Entry(String tenant, T item, long start, long finish, long order, Flow<T> flow) {
			this.flow = flow;
			this.tenant = tenant;
			this.item = item;
			this.start = start;
			this.finish = finish;
			this.order = order;
		}

		/**
		 * Returns the waiter.
		 * @return the waiter
		 */
		public T item() {
			return this.item;
		}

		/**
		 * Returns the waiter's tenant.
		 * @return the tenant
		 */
		public String tenant() {
			return this.tenant;
		}

		/**
		 * Tells whether the entry waits in its queue.
		 * @return {@code true} while queued
		 */
		public boolean isQueued() {
			return this.queued;
		}

		boolean before(Entry<T> other) {
			if (this.finish != other.finish) {
				return this.finish < other.finish;
			}
			return this.order < other.order;
		}

	}

	/**
	 * A walk over the queued entries in service order (see {@link #serviceOrder()}).
	 *
	 * @param <T> the waiters
	 */
	public static final class ServiceOrder<T> {

		private final FairQueue<T> queue;

		/** Each tenant's next entry, with the rest of its entries behind it. */
		private final PriorityQueue<Head<T>> heads;

		private @Nullable Head<T> current;

		ServiceOrder(FairQueue<T> queue) {
			this.queue = queue;
			List<Head<T>> starts = new ArrayList<>(queue.flows.size());
			for (Flow<T> flow : queue.flows.values()) {
				Iterator<Entry<T>> entries = flow.entries.iterator();
				if (entries.hasNext()) {
					starts.add(new Head<>(entries));
				}
			}
			// Heapified at once (the heads' natural order): linear in the tenants.
			this.heads = new PriorityQueue<>(starts);
		}

		/**
		 * Returns the next entry in service order, leaving it queued.
		 * @return the entry, or {@code null} once every entry was walked
		 */
		public @Nullable Entry<T> next() {
			Head<T> last = this.current;
			if (last != null && last.advance()) {
				this.heads.add(last);
			}
			this.current = this.heads.poll();
			return (this.current != null) ? this.current.entry : null;
		}

		/**
		 * Serves the entry {@link #next()} returned last, out of turn if need be (it fit
		 * where those before it did not): removes it and moves the virtual time to its
		 * start.
		 */
		public void take() {
			Head<T> head = this.current;
			if (head == null || !head.entry.queued) {
				throw new IllegalStateException("no entry to take");
			}
			head.entries.remove();
			head.entry.queued = false;
			this.queue.size--;
			this.queue.virtualTime = Math.max(this.queue.virtualTime, head.entry.start);
		}

	}

	/** A tenant's place in a walk: its entry there and the entries after it. */
	private static final class Head<T> implements Comparable<Head<T>> {

		final Iterator<Entry<T>> entries;

		Entry<T> entry;

		Head(Iterator<Entry<T>> entries) {
			this.entries = entries;
			this.entry = entries.next();
		}

		boolean advance() {
			if (!this.entries.hasNext()) {
				return false;
			}
			this.entry = this.entries.next();
			return true;
		}

		@Override
		public int compareTo(Head<T> other) {
			return this.entry.before(other.entry) ? -1 : (other.entry.before(this.entry) ? 1 : 0);
		}

	}

	private static final class Flow<T> {

		final ArrayDeque<Entry<T>> entries = new ArrayDeque<>();

		long lastFinish;

	}

}
