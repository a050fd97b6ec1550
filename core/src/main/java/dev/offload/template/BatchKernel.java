package dev.offload.template;

import java.util.List;

import dev.offload.kernel.KernelRef;

/**
 * How one kernel serves a batch of items: it checks each item before it is queued,
 * appends the batch's parameters to a {@link KernelCall}, and reads each item's slice of
 * the {@link KernelResult}. <pre>{@code
 * // __global__ void price(int n, const double* spot, const double* strike, double* call)
 * final class PriceBatch implements BatchKernel<Option, Double> {
 *     public KernelRef kernel() { return PRICE; }
 *     public void validate(Option option) {
 *         if (option.spot() <= 0) throw new IllegalArgumentException("spot must be positive");
 *     }
 *     public void gather(List<Option> options, KernelCall call) {
 *         int n = options.size();
 *         call.threads(n).arg(n)
 *             .in(options.stream().mapToDouble(Option::spot).toArray())
 *             .in(options.stream().mapToDouble(Option::strike).toArray())
 *             .outDoubles(n);
 *     }
 *     public Double slice(KernelResult result, int index) { return result.doubles(0)[index]; }
 * }
 * }</pre> A kernel that reports a status per item (an {@code outInts(n)} of error codes)
 * fails an item from {@link #slice(KernelResult, int)} by throwing: that item's caller
 * gets the exception, the others their results.
 *
 * @param <I> the item's type
 * @param <O> the result's type for one item
 */
public interface BatchKernel<I, O> {

	/**
	 * Returns the kernel the batches launch; its name names the batcher in metrics.
	 * @return the kernel
	 */
	KernelRef kernel();

	/**
	 * Checks an item before it is queued, so that a bad item fails alone instead of
	 * failing its batch. The default accepts every item.
	 * @param item the item
	 * @throws IllegalArgumentException naming what is wrong with it
	 */
	default void validate(I item) {
	}

	/**
	 * Appends the launch geometry and the parameters for a batch to a call.
	 * @param items the batch's items, at least one, in their order of arrival
	 * @param call the call, with nothing appended yet
	 */
	void gather(List<I> items, KernelCall call);

	/**
	 * Reads one item's result.
	 * @param result the batch's outputs
	 * @param index the item's index in the batch
	 * @return the item's result
	 * @throws RuntimeException to fail this item only (the kernel marked it failed)
	 */
	O slice(KernelResult result, int index);

}
