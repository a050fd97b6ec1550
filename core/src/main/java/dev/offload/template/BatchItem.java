package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A caller's item of a {@link Batcher}, queued until its batch completes.
 *
 * @param <I> the item's type
 * @param <O> the result's type for one item
 * @param value the item
 * @param submittedNanos when it was submitted ({@link System#nanoTime()})
 * @param timeout how long it may wait in the queue, or {@code null} for no deadline
 * @param future completed with the item's result, or with its failure
 * @param tenant the submitting tenant
 */
record BatchItem<I, O>(I value, long submittedNanos, @Nullable Duration timeout, CompletableFuture<O> future,
		String tenant) {

}
