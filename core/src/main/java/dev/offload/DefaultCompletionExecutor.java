package dev.offload;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * Holds the default completion executor of a {@link DeviceRegistry}, created on first
 * use: see {@link DeviceRegistry#defaultCompletionExecutor()}.
 */
final class DefaultCompletionExecutor {

	static final Executor INSTANCE = create();

	private DefaultCompletionExecutor() {
	}

	private static Executor create() {
		int parallelism = Math.max(2, Runtime.getRuntime().availableProcessors());
		return new ForkJoinPool(parallelism, (pool) -> {
			ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
			thread.setName("offload-async-" + thread.getPoolIndex());
			thread.setDaemon(true);
			return thread;
		}, null, true);
	}

}
