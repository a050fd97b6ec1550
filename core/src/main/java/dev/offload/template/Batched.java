package dev.offload.template;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gathers concurrent calls of a one-item method into batches served by a batch method of
 * the same bean, through a {@link Batcher} (the request collapser of Hystrix, the dynamic
 * batcher of Triton). <pre>{@code
 * &#64;Batched(batchMethod = "priceAll")
 * public CompletableFuture<Double> price(Option option) {
 *     throw new UnsupportedOperationException("@Batched: calls go to priceAll");
 * }
 *
 *

&#64;Offload
 * public List<Double> priceAll(List<Option> options) {
 *     ... one launch for every option ...
 * }
 * }</pre>
 * <ul>
 * <li>The annotated method takes one parameter (the item) and returns
 * {@link java.util.concurrent.CompletableFuture} or
 * {@link java.util.concurrent.CompletionStage} of the item's result. Its body does not
 * run: a call queues its argument and returns the item's future.</li>
 * <li>The batch method takes a {@link java.util.List} of items and returns a {@code List}
 * of results, one per item in the same order, or a {@code CompletionStage} of one. It is
 * called through the bean's proxy, so its own {@link Offload @Offload} (device, priority,
 * lane, timeout) applies to every batch.</li>
 * <li>Batches follow {@code offload.batching.*}, with the overrides given here; a full
 * queue throws {@link BatchQueueFullException} from the call.</li>
 * </ul>
 * The shapes are checked at startup. In a Spring application, only calls through the
 * proxy are batched.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Batched {

	/**
	 * The name of the bean's method that serves a batch.
	 * @return the batch method's name
	 */
	String batchMethod();

	/**
	 * The most items in one batch.
	 * @return the size, or 0 (the default) for {@code offload.batching.max-batch-size}
	 */
	int maxBatchSize() default 0;

	/**
	 * How long the first item of a batch waits for others, as {@link Offload#timeout()}
	 * spells durations ({@code "200us"}, {@code "1ms"}).
	 * @return the delay, or empty (the default) for {@code offload.batching.max-delay}
	 */
	String maxDelay() default "";

	/**
	 * How long each call's item may wait in the queue before its future fails with a
	 * {@link BatchTimeoutException}.
	 * @return the timeout, or empty (the default) for none
	 */
	String timeout() default "";

}
