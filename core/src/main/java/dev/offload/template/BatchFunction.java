package dev.offload.template;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Work that serves a batch of items at once and returns one result per item, in the
 * items' order: what a {@link Batcher} calls for each batch when the work is not one
 * kernel (a {@link Batched @Batched} method's batch method, a flow of several launches).
 *
 * @param <I> the item's type
 * @param <O> the result's type for one item
 */
@FunctionalInterface
public interface BatchFunction<I, O> {

	/**
	 * Serves a batch.
	 * @param items the items, at least one, in their order of arrival
	 * @return a stage completed with exactly one result per item
	 */
	CompletionStage<List<O>> apply(List<I> items);

}
