package dev.offload.virtualthreads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * Runs test work on virtual threads from code compiled for Java 17, where the Java 21
 * factories are reached by reflection.
 */
public final class OnVirtualThreads {

	private OnVirtualThreads() {
	}

	/**
	 * Runs {@code work} on {@code count} virtual threads at once, one each, and waits for
	 * all.
	 * @param count how many
	 * @param work the work, given the thread's index
	 * @throws Exception what the work threw (wrapped in an
	 * {@link java.util.concurrent.ExecutionException}), or a
	 * {@link java.util.concurrent.TimeoutException} after two minutes for one thread
	 */
	public static void run(int count, IntConsumer work) throws Exception {
		ExecutorService executor = executor();
		try {
			List<Future<?>> done = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				int each = i;
				done.add(executor.submit(() -> work.accept(each)));
			}
			for (Future<?> each : done) {
				each.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Returns an executor that starts a virtual thread per task.
	 * @return the executor
	 * @throws ReflectiveOperationException on a runtime before Java 21
	 */
	public static ExecutorService executor() throws ReflectiveOperationException {
		return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
	}

}
