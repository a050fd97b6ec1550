package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.internal.DeadlineTimer;

/**
 * Runs the batches a {@link Batcher} cuts: leaves out the items whose deadline passed or
 * whose future is done, runs the others as one unit of work, reports the batch to the
 * listener and wakes each caller with its own result, in slices on the completion
 * executor. Counts the batches, items, expired and failed items for the batcher's
 * {@link Batcher.Statistics}.
 *
 * @param <I> the item's type
 * @param <O> the result's type for one item
 */
final class BatchDispatcher<I, O> {

	private static final Logger logger = LoggerFactory.getLogger(Batcher.class);

	/** The most callers one task of the completion executor wakes. */
	static final int COMPLETION_SLICE = 64;

	/** The fewest callers worth a task of the completion executor of their own. */
	static final int MIN_COMPLETION_SLICE = 8;

	private static final int CPUS = Runtime.getRuntime().availableProcessors();

	private final String name;

	private final Batcher.Runner<I, O> runner;

	private final BatchListener listener;

	private final Executor completer;

	final LongAdder batches = new LongAdder();

	final LongAdder items = new LongAdder();

	final LongAdder expired = new LongAdder();

	final LongAdder failed = new LongAdder();

	BatchDispatcher(String name, Batcher.Runner<I, O> runner, BatchListener listener, Executor completer) {
		this.name = name;
		this.runner = runner;
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		this.completer = Objects.requireNonNull(completer, "completer must not be null");
	}

	/**
	 * Runs a batch cut from the queue.
	 * @param cut the batch
	 * @param abandoned whether a shutdown failed the items after the cut
	 * @param completed run once the batch is done with (its callers completed, or nothing
	 * to run)
	 */
	void dispatch(BatchQueue.Cut<I, O> cut, BooleanSupplier abandoned, Runnable completed) {
		long now = System.nanoTime();
		List<BatchItem<I, O>> live = new ArrayList<>(cut.items.size());
		for (BatchItem<I, O> item : cut.items) {
			if (item.isPastTimeout(now)) {
				expire(item);
			}
			// Claimed even when its caller cancelled it, so that its timer stops too.
			else if (item.dispatch() && !item.future().isDone()) {
				live.add(item);
			}
		}
		if (live.isEmpty() || abandoned.getAsBoolean()) {
			// Abandoned: a shutdown failed the items after the cut.
			completed.run();
			return;
		}
		List<I> inputs = new ArrayList<>(live.size());
		long[] delays = new long[live.size()];
		for (int i = 0; i < delays.length; i++) {
			inputs.add(live.get(i).value());
			delays[i] = now - live.get(i).submittedNanos();
		}
		CompletableFuture<Batcher.Slices<O>> run;
		try {
			run = this.runner.run(inputs);
		}
		catch (RuntimeException ex) {
			run = CompletableFuture.failedFuture(ex);
		}
		run.whenComplete((slices, failure) -> {
			try {
				complete(live, delays, slices, failure);
			}
			finally {
				completed.run();
			}
		});
	}

	/**
	 * Fails an item whose timeout passed before its batch was dispatched, unless it was
	 * dispatched first; called by the dispatcher as it cuts a batch, and by the deadline
	 * timer while the dispatcher is busy (waiting for a stream with a batch in hand). The
	 * caller is woken on the completion executor, never on the timer's thread.
	 * @param item the item
	 */
	void expire(BatchItem<I, O> item) {
		if (!item.expire()) {
			return;
		}
		this.expired.increment();
		Duration waited = Duration.ofNanos(System.nanoTime() - item.submittedNanos());
		BatchTimeoutException timeout = new BatchTimeoutException(this.name, Objects.requireNonNull(item.timeout()),
				waited);
		DeadlineTimer.execute(this.completer, () -> item.future().completeExceptionally(timeout),
				"offload-batch-deadline-fallback");
	}

	private void complete(List<BatchItem<I, O>> batch, long[] delays, Batcher.Slices<O> slices, Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		// Counted and reported before any caller sees its result, so that a caller reads
		// statistics and meters that include its batch.
		this.batches.increment();
		this.items.add(batch.size());
		int deviceId = (slices != null) ? slices.deviceId() : OffloadAttributes.ANY_DEVICE;
		String[] tenants = new String[batch.size()];
		for (int i = 0; i < tenants.length; i++) {
			tenants[i] = batch.get(i).tenant();
		}
		try {
			this.listener.batchCompleted(
					new BatchListener.CompletedBatch(this.name, deviceId, batch.size(), delays, tenants, cause));
		}
		catch (RuntimeException ex) {
			logger.warn("Batch listener failed on a batch of '{}'", this.name, ex);
		}
		// Each result wakes its caller's thread, a few microseconds each: a batch of a
		// thousand callers woken one after another on one thread would take milliseconds,
		// longer than the batch's kernel. The callers are woken in slices on the
		// completion executor, the first slice here. This thread is often the device's
		// one completion thread, which every batch passes through: the slices are cut so
		// that even a batch of a few dozen callers is woken by several threads.
		int size = batch.size();
		int sliceSize = completionSlice(size, CPUS);
		for (int from = sliceSize; from < size; from += sliceSize) {
			int start = from;
			int end = Math.min(size, from + sliceSize);
			Runnable slice = () -> completeSlice(batch, start, end, slices, cause);
			try {
				this.completer.execute(slice);
			}
			catch (RejectedExecutionException ex) {
				slice.run();
			}
		}
		completeSlice(batch, 0, Math.min(size, sliceSize), slices, cause);
	}

	/**
	 * Returns how many callers each task wakes: the batch shared among the CPUs, from
	 * {@link #MIN_COMPLETION_SLICE} (a smaller slice costs more to hand off than it
	 * saves) to {@link #COMPLETION_SLICE}.
	 * @param size the batch's size
	 * @param cpus the CPUs that may wake callers
	 * @return the slice's size
	 */
	static int completionSlice(int size, int cpus) {
		int sharing = Math.max(1, cpus);
		int shared = (size + sharing - 1) / sharing;
		return Math.max(MIN_COMPLETION_SLICE, Math.min(COMPLETION_SLICE, shared));
	}

	private void completeSlice(List<BatchItem<I, O>> batch, int from, int to, Batcher.@Nullable Slices<O> slices,
			@Nullable Throwable cause) {
		for (int i = from; i < to; i++) {
			CompletableFuture<O> future = batch.get(i).future();
			if (cause != null || slices == null) {
				this.failed.increment();
				future.completeExceptionally((cause != null) ? cause : new IllegalStateException("No results"));
				continue;
			}
			try {
				future.complete(slices.get(i));
			}
			catch (RuntimeException ex) {
				this.failed.increment();
				future.completeExceptionally(ex);
			}
		}
	}

}
