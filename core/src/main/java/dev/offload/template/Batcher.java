package dev.offload.template;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.DeviceRegistry;
import dev.offload.TenantPolicy;
import dev.offload.internal.DeadlineTimer;

/**
 * Gathers concurrent submissions of single items into batches and runs each batch as one
 * unit of work (one kernel launch on one stream): Triton's dynamic batcher, for small
 * requests that would each pay a launch and a round trip of their own. <pre>{@code
 * Batcher<Option, Double> pricer = template.batcher(new PriceBatch());
 * CompletableFuture<Double> price = pricer.submit(option);
 * }</pre>
 * <ul>
 * <li>A batch is dispatched when {@link BatchPolicy#maxBatchSize()} items wait or when
 * the oldest has waited {@link BatchPolicy#maxDelay()}; see {@link BatchPolicy}.</li>
 * <li>Each caller gets its own result, read from the batch's output
 * ({@link BatchKernel#slice(KernelResult, int)}), and its own failure: a bad item is
 * refused before it is queued ({@link BatchKernel#validate(Object)}), an item the kernel
 * marks failed fails alone, and a failure of the batch's work fails its items.</li>
 * <li>Each caller has its own deadline ({@link #submit(Object, Duration)}): an item still
 * queued when it passes is failed with a {@link BatchTimeoutException} and left out of
 * its batch; an item whose future was cancelled is left out too.</li>
 * <li>A full queue refuses at once with a {@link BatchQueueFullException}.</li>
 * </ul>
 * Batches of a kernel batcher run in sessions of the batcher's {@link OffloadAttributes},
 * so its device, priority class and lane apply to every batch. One dispatcher thread per
 * batcher ({@code offload-batcher-<name>}) cuts batches and enqueues them without waiting
 * for their work; results complete on the registry's completion executor. A submit takes
 * no lock (the items wait in a lock-free queue that the dispatcher drains), so that a
 * burst of callers does not queue up on one. {@link #close()} dispatches what is queued
 * and stops the thread.
 * <p>
 * A batcher of an {@link OffloadTemplate} drains with its registry: when the
 * {@link DeviceRegistry#close(Duration) registry closes}, the batcher refuses new items
 * at once ({@link BatcherClosedException}) and dispatches its queue while the devices
 * still lend; the items still queued or in a batch not done when the registry's
 * await-termination ends are failed with a {@link BatcherClosedException}, so that no
 * caller waits for ever.
 *
 * @param <I> the item's type
 * @param <O> the result's type for one item
 */
public final class Batcher<I, O> implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(Batcher.class);

	private final String name;

	private final int deviceId;

	private final BatchPolicy policy;

	private final Consumer<I> validator;

	private final Consumer<Batcher<?, ?>> onClose;

	private final Consumer<Batcher<?, ?>> onDrained;

	/** Runs the batches cut and wakes their callers. */
	private final BatchDispatcher<I, O> batchDispatcher;

	/**
	 * The items not yet cut: their pending part guarded by {@link #pendingLock}, which
	 * only a shutdown past its await-termination contends.
	 */
	private final BatchQueue<I, O> pending;

	/** The tenant of the calling thread, whose items are taken fairly with others'. */
	private final Supplier<@Nullable String> tenantOf;

	/**
	 * Guards {@link #pending} and the cut of a batch, so that a shutdown past its
	 * await-termination can fail them from its own thread.
	 */
	private final ReentrantLock pendingLock = new ReentrantLock();

	/** The batches cut and not yet completed, so that a shutdown can wait for them. */
	private final Set<BatchQueue.Cut<I, O>> inFlight = ConcurrentHashMap.newKeySet();

	/** Completed once closed, the dispatcher has ended and no batch is in flight. */
	private final CompletableFuture<Void> drained = new CompletableFuture<>();

	/** Whether the registry's close, not {@link #close()}, closed the batcher. */
	private volatile boolean registryClosing;

	/** Set when a shutdown's await-termination ended: nothing more is dispatched. */
	private volatile @Nullable RuntimeException abandoned;

	private volatile boolean dispatcherEnded;

	/** What the registry's close calls: see {@link DeviceRegistry.Drainable}. */
	final DeviceRegistry.Drainable drainable = new DeviceRegistry.Drainable() {

		@Override
		public void stopAccepting() {
			Batcher.this.stopAccepting();
		}

		@Override
		public boolean drain(Duration timeout) {
			return Batcher.this.drain(timeout);
		}

		@Override
		public String toString() {
			return Batcher.this.toString();
		}

	};

	/**
	 * The items accepted and not yet cut into a batch (arrivals and pending), and for a
	 * moment those of callers that find the batcher closed or full and take their count
	 * back: once closed, the dispatcher ends only when it is zero, so that no item
	 * accepted is stranded.
	 */
	private final AtomicInteger queued = new AtomicInteger();

	private final AtomicBoolean closed = new AtomicBoolean();

	private final Thread dispatcher;

	private final LongAdder refused = new LongAdder();

	Batcher(String name, int deviceId, BatchPolicy policy, Consumer<I> validator, Runner<I, O> runner,
			BatchListener listener, Consumer<Batcher<?, ?>> onClose, Executor completer) {
		this(name, deviceId, policy, validator, runner, listener, onClose, (drained) -> {
		}, completer, () -> null, (tenant) -> 1);
	}

	/**
	 * Creates and starts a batcher.
	 * @param onClose told once the batcher is closed (it takes no more items)
	 * @param onDrained told once closed, its dispatcher ended and its batches completed
	 * @param tenantOf the tenant of the submitting thread, or {@code null} for the
	 * default
	 * @param weights the weight of a tenant: a batch takes items across tenants by them
	 */
	Batcher(String name, int deviceId, BatchPolicy policy, Consumer<I> validator, Runner<I, O> runner,
			BatchListener listener, Consumer<Batcher<?, ?>> onClose, Consumer<Batcher<?, ?>> onDrained,
			Executor completer, Supplier<@Nullable String> tenantOf, ToIntFunction<String> weights) {
		this.tenantOf = tenantOf;
		this.pending = new BatchQueue<>(weights);
		this.name = name;
		this.deviceId = deviceId;
		this.policy = Objects.requireNonNull(policy, "policy must not be null");
		this.validator = validator;
		this.onClose = onClose;
		this.onDrained = onDrained;
		this.batchDispatcher = new BatchDispatcher<>(name, runner, listener, completer);
		this.dispatcher = new Thread(this::dispatchLoop, "offload-batcher-" + name);
		this.dispatcher.setDaemon(true);
		this.dispatcher.start();
	}

	/**
	 * Queues an item without a deadline of its own.
	 * @param item the item
	 * @return a future completed with the item's result, or with its failure
	 * @throws IllegalArgumentException if the item is refused by the kernel's
	 * {@linkplain BatchKernel#validate(Object) check}
	 * @throws BatchQueueFullException if the queue is full
	 * @throws BatcherClosedException if the batcher is closed or its registry is shutting
	 * down
	 */
	public CompletableFuture<O> submit(I item) {
		return enqueue(item, null);
	}

	/**
	 * Queues an item that waits at most {@code timeout} for its batch to be dispatched;
	 * past it, the future fails with a {@link BatchTimeoutException}.
	 * @param item the item
	 * @param timeout how long it may wait in the queue; positive
	 * @return a future completed with the item's result, or with its failure
	 * @throws IllegalArgumentException if the timeout is not positive or the item is
	 * refused by the kernel's check
	 * @throws BatchQueueFullException if the queue is full
	 * @throws BatcherClosedException if the batcher is closed or its registry is shutting
	 * down
	 */
	public CompletableFuture<O> submit(I item, Duration timeout) {
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive, was " + timeout);
		}
		return enqueue(item, timeout);
	}

	private CompletableFuture<O> enqueue(I item, @Nullable Duration timeout) {
		this.validator.accept(item);
		String tenant = this.tenantOf.get();
		BatchItem<I, O> entry = new BatchItem<>(item, System.nanoTime(), timeout, new CompletableFuture<>(),
				(tenant != null) ? tenant : TenantPolicy.DEFAULT_TENANT);
		// Counted before the batcher is seen open: once closed, the dispatcher waits for
		// the items counted (and for the callers that count one and then see it closed),
		// so an item added after it saw the batcher open is never left behind. One count
		// serves that and the bound, so that a caller writes one shared counter.
		int size = this.queued.incrementAndGet();
		if (this.closed.get()) {
			this.queued.decrementAndGet();
			throw refusal();
		}
		if (size > this.policy.maxQueue()) {
			this.queued.decrementAndGet();
			this.refused.increment();
			throw new BatchQueueFullException(this.name, this.policy.maxQueue());
		}
		this.pending.add(entry);
		if (timeout != null) {
			// Expires the item while the dispatcher is busy (waiting for a stream with an
			// earlier batch, say); the dispatcher expires it too as it cuts a batch.
			entry.expiresWith(DeadlineTimer.schedule(() -> this.batchDispatcher.expire(entry), timeout.toNanos()));
		}
		// The dispatcher waits for the first item, then for the dispatch size or the
		// delay.
		if (size == 1 || size == this.policy.dispatchSize()) {
			LockSupport.unpark(this.dispatcher);
		}
		return entry.future();
	}

	BatcherClosedException refusal() {
		if (this.registryClosing) {
			return new BatcherClosedException(this.name,
					"The batcher '" + this.name + "' is closed: its registry is shutting down and takes no new items");
		}
		return new BatcherClosedException(this.name, "The batcher '" + this.name + "' is closed");
	}

	/**
	 * Returns the batcher's name: its kernel's, or the one it was given, with {@code #2},
	 * {@code #3}... after it if another batcher of its template had that name when it
	 * started.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the device the batcher's batches run on.
	 * @return the device's id, or {@link OffloadAttributes#ANY_DEVICE} if they run on the
	 * least busy device (or where a batch function puts them)
	 */
	public int deviceId() {
		return this.deviceId;
	}

	/**
	 * Returns how the batcher cuts batches.
	 * @return the policy
	 */
	public BatchPolicy policy() {
		return this.policy;
	}

	/**
	 * Returns the counts of the batcher's work so far.
	 * @return a snapshot
	 */
	public Statistics statistics() {
		BatchDispatcher<I, O> counts = this.batchDispatcher;
		return new Statistics(this.name, Math.max(0, this.queued.get()), this.policy.maxQueue(), counts.batches.sum(),
				counts.items.sum(), this.refused.sum(), counts.expired.sum(), counts.failed.sum());
	}

	/**
	 * Stops taking items, dispatches the items queued (without waiting for the delay) and
	 * waits up to 10 seconds for the dispatcher to end; the batches' work completes on
	 * its own. Closing twice is harmless.
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		closed();
		if (Thread.currentThread() != this.dispatcher) {
			try {
				this.dispatcher.join(TimeUnit.SECONDS.toMillis(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Refuses new items, as its registry's close begins, and lets the dispatcher dispatch
	 * the queue at once; returns without waiting.
	 */
	void stopAccepting() {
		if (!this.closed.get()) {
			// Written before the flag, so that a caller refused reads why.
			this.registryClosing = true;
		}
		if (this.closed.compareAndSet(false, true)) {
			closed();
		}
	}

	private void closed() {
		LockSupport.unpark(this.dispatcher);
		this.onClose.accept(this);
		checkDrained();
	}

	/**
	 * Waits, once closed, up to {@code timeout} for the queue to be dispatched and its
	 * batches to complete; past it, fails what is left (queued, or in a batch not done)
	 * with a {@link BatcherClosedException}, so that no caller waits for ever.
	 * @param timeout how long to wait, at least 0
	 * @return {@code true} if every item was dispatched and its batch completed in time
	 */
	boolean drain(Duration timeout) {
		stopAccepting();
		if (Thread.currentThread() != this.dispatcher) {
			try {
				this.drained.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
				return true;
			}
			catch (TimeoutException ex) {
				// Abandoned below.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException(ex);
			}
		}
		int left = Math.max(0, this.queued.get())
				+ this.inFlight.stream().mapToInt((batch) -> batch.items.size()).sum();
		if (left > 0) {
			logger.warn("Batcher '{}' still had {} item(s) queued or in batches not done when the shutdown's "
					+ "await-termination ended; they are failed", this.name, left);
		}
		abandon(new BatcherClosedException(this.name,
				"The batcher '" + this.name + "' is closed: its registry is shutting down and its await-termination "
						+ "ended before the item's batch was done"));
		return left == 0;
	}

	/**
	 * Fails every item queued or in a batch not done, and stops the dispatcher
	 * dispatching: what it holds when it comes back is failed too.
	 */
	private void abandon(RuntimeException reason) {
		this.abandoned = reason;
		// Through the lock: a batch the dispatcher cuts is in flight before this thread
		// looks, or the dispatcher sees the batcher abandoned before it cuts one.
		failQueued(reason);
		for (BatchQueue.Cut<I, O> batch : this.inFlight) {
			batch.items.forEach((item) -> item.future().completeExceptionally(reason));
		}
		LockSupport.unpark(this.dispatcher);
	}

	private void checkDrained() {
		if (this.dispatcherEnded && this.inFlight.isEmpty() && this.closed.get() && !this.drained.isDone()
				&& this.drained.complete(null)) {
			this.onDrained.accept(this);
		}
	}

	private void dispatchLoop() {
		try {
			dispatchUntilClosed();
		}
		finally {
			this.dispatcherEnded = true;
			checkDrained();
		}
	}

	private void dispatchUntilClosed() {
		while (true) {
			BatchQueue.Cut<I, O> batch;
			try {
				batch = nextBatch();
			}
			catch (InterruptedException ex) {
				failQueued(new IllegalStateException("The dispatcher of batcher '" + this.name + "' was interrupted"));
				return;
			}
			catch (RuntimeException | Error ex) {
				// Without its dispatcher nothing queued would ever complete: fail it, and
				// refuse what comes.
				logger.error("The dispatcher of batcher '{}' failed", this.name, ex);
				failQueued(new IllegalStateException("The dispatcher of batcher '" + this.name + "' failed", ex));
				return;
			}
			if (batch == null) {
				return;
			}
			try {
				dispatch(batch);
			}
			catch (RuntimeException | Error ex) {
				// The dispatcher goes on: only this batch fails.
				logger.error("Batcher '{}' could not dispatch a batch of {} items", this.name, batch.items.size(), ex);
				batch.items.forEach((item) -> item.future().completeExceptionally(ex));
				completed(batch);
			}
		}
	}

	/**
	 * Waits for the next batch: the first item, then a batch of the policy's dispatch
	 * size or the first item's delay; returns {@code null} once closed and drained, or
	 * abandoned. The batch returned is in flight.
	 */
	private BatchQueue.@Nullable Cut<I, O> nextBatch() throws InterruptedException {
		long delayNanos = this.policy.maxDelay().toNanos();
		while (true) {
			// How to wait for more: a yield (0), a park without end (-1), or a timed
			// park.
			long waitNanos;
			this.pendingLock.lock();
			try {
				if (this.abandoned != null) {
					// The shutdown failed what was queued, and fails what comes.
					return null;
				}
				this.pending.drainArrivals();
				if (this.pending.isEmpty()) {
					// Read before the count: a caller that counts an item after this
					// thread saw the batcher closed sees it closed too.
					boolean closed = this.closed.get();
					if (this.queued.get() != 0) {
						// An item is counted but not added yet (its caller saw other
						// items, so it will not wake this thread), or a caller that saw
						// the batcher closed is taking its count back.
						waitNanos = 0;
					}
					else if (closed) {
						// Nothing is counted: what arrived is the last.
						return null;
					}
					else {
						// The next caller counts the first item and wakes this thread.
						waitNanos = -1;
					}
				}
				else if (this.closed.get() || this.pending.size() >= this.policy.dispatchSize()) {
					return cut();
				}
				else {
					long remaining = this.pending.oldestSubmittedNanos() + delayNanos - System.nanoTime();
					if (remaining <= 0) {
						return cut();
					}
					// Enough items counted, some not added yet: their callers saw the
					// dispatch size passed and will not wake this thread.
					waitNanos = (this.queued.get() >= this.policy.dispatchSize()) ? 0 : remaining;
				}
			}
			finally {
				this.pendingLock.unlock();
			}
			if (waitNanos == 0) {
				Thread.yield();
			}
			else if (waitNanos < 0) {
				LockSupport.park(this);
			}
			else {
				LockSupport.parkNanos(this, waitNanos);
			}
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
		}
	}

	/**
	 * Cuts a batch from the pending items, taken across tenants by their weights (a
	 * flooding tenant cannot fill every batch); called holding the lock.
	 */
	private BatchQueue.Cut<I, O> cut() {
		int size = this.policy.cut(this.pending.size());
		BatchQueue.Cut<I, O> inFlight = this.pending.cut(size);
		this.inFlight.add(inFlight);
		this.queued.addAndGet(-size);
		return inFlight;
	}

	private void completed(BatchQueue.Cut<I, O> batch) {
		this.inFlight.remove(batch);
		checkDrained();
	}

	private void dispatch(BatchQueue.Cut<I, O> batch) {
		this.batchDispatcher.dispatch(batch, () -> this.abandoned != null, () -> completed(batch));
	}

	private void failQueued(RuntimeException reason) {
		// Without its dispatcher the batcher takes nothing more: a later submit is
		// refused instead of waiting for ever.
		boolean wasOpen = this.closed.compareAndSet(false, true);
		while (true) {
			int left;
			this.pendingLock.lock();
			try {
				// The callers that saw the batcher open add their items, then none can.
				this.pending.drainArrivals();
				left = this.queued.addAndGet(-this.pending.failPending(reason));
			}
			finally {
				this.pendingLock.unlock();
			}
			if (left == 0) {
				break;
			}
			Thread.yield();
		}
		if (wasOpen) {
			// Closed here, so close() will return at once: the template forgets it now.
			this.onClose.accept(this);
		}
	}

	@Override
	public String toString() {
		return "Batcher['" + this.name + "', " + this.policy + "]";
	}

	/**
	 * What a batcher has done so far.
	 *
	 * @param name the batcher's name
	 * @param queued the items waiting now
	 * @param maxQueue the most items that may wait
	 * @param batches the batches run (their work ended)
	 * @param items the items in those batches
	 * @param refused the items refused because the queue was full
	 * @param expired the items whose deadline passed in the queue
	 * @param failed the items of those batches that failed
	 */
	public record Statistics(String name, int queued, int maxQueue, long batches, long items, long refused,
			long expired, long failed) {

		/**
		 * Returns the mean number of items per batch.
		 * @return the mean, or 0 before the first batch
		 */
		public double meanBatchSize() {
			return (this.batches == 0) ? 0 : (double) this.items / this.batches;
		}

	}

	/**
	 * Runs a batch; what {@link OffloadTemplate} builds from a {@link BatchKernel} or a
	 * {@link BatchFunction}.
	 */
	@FunctionalInterface
	interface Runner<I, O> {

		CompletableFuture<Slices<O>> run(List<I> items);

	}

	/**
	 * A batch's results, read one item at a time (reading may fail one item).
	 */
	record Slices<O>(int deviceId, IntFunction<O> reader) {

		O get(int index) {
			return this.reader.apply(index);
		}

	}

}
