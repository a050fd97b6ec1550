package dev.offload.template;

/**
 * Told of every batch a {@link Batcher} ran, for metrics. Implementations must be fast
 * and must not throw (what they throw is logged and dropped).
 */
@FunctionalInterface
public interface BatchListener {

	/**
	 * A listener that does nothing.
	 */
	BatchListener NONE = (batch) -> {
	};

	/**
	 * A batcher started; called before its first item is taken, so that meters exist
	 * before the first batch. The default does nothing.
	 * @param batcher the batcher
	 */
	default void batcherStarted(Batcher<?, ?> batcher) {
	}

	/**
	 * A batch's work ended.
	 * @param batch what ran
	 */
	void batchCompleted(CompletedBatch batch);

	/**
	 * One batch.
	 *
	 * @param name the batcher's name (the kernel's name, or the batch method's)
	 * @param deviceId the device it ran on, or {@link OffloadAttributes#ANY_DEVICE} if
	 * the batcher does not know (a batch function's, or a batch that failed before its
	 * device was known)
	 * @param size the number of items
	 * @param queueDelaysNanos each item's time from its submission to the batch's
	 * dispatch
	 * @param tenants each item's tenant, in the order of {@code queueDelaysNanos}
	 * ({@link dev.offload.TenantPolicy#DEFAULT_TENANT} for an item submitted without one)
	 * @param failure the batch's failure, or {@code null}
	 */
	record CompletedBatch(String name, int deviceId, int size, long[] queueDelaysNanos, String[] tenants,
			Throwable failure) {

	}

}
