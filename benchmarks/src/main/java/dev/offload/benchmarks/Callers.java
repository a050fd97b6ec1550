package dev.offload.benchmarks;

import java.util.Locale;
import java.util.concurrent.ThreadFactory;

import dev.offload.internal.VirtualThreads;

/**
 * The threads that make a benchmark's requests, one per caller: platform threads, or
 * virtual threads (Java 21 and later, as a Spring service with
 * {@code spring.threads.virtual.enabled} runs its requests), created by reflection since
 * the benchmarks compile for Java 17.
 */
enum Callers {

	/** A platform thread per caller. */
	PLATFORM,

	/** A virtual thread per caller. */
	VIRTUAL;

	/**
	 * Reads a caller model from the command line.
	 * @param name {@code platform} or {@code virtual}
	 * @return the model
	 * @throws IllegalArgumentException for another name, or for {@code virtual} on a
	 * runtime without virtual threads
	 */
	static Callers parse(String name) {
		Callers callers = switch (name) {
			case "platform" -> PLATFORM;
			case "virtual" -> VIRTUAL;
			default -> throw new IllegalArgumentException("--callers must be platform or virtual, was " + name);
		};
		if (callers == VIRTUAL && !VirtualThreads.isSupported()) {
			throw new IllegalArgumentException(
					"--callers virtual needs Java 21 or later; this is Java " + Runtime.version());
		}
		return callers;
	}

	/**
	 * Starts one thread per caller, each running {@code body} with its index.
	 * @param count the callers
	 * @param body what each caller does
	 * @return the running callers, to {@linkplain Running#join() join}
	 */
	Running start(int count, Body body) {
		ThreadFactory factory = threadFactory();
		Thread[] threads = new Thread[count];
		Throwable[] failures = new Throwable[count];
		for (int i = 0; i < count; i++) {
			int index = i;
			threads[i] = factory.newThread(() -> {
				try {
					body.run(index);
				}
				catch (Throwable ex) {
					failures[index] = ex;
				}
			});
			threads[i].setName("caller-" + i);
		}
		for (Thread thread : threads) {
			thread.start();
		}
		return new Running(threads, failures);
	}

	@Override
	public String toString() {
		return name().toLowerCase(Locale.ROOT);
	}

	private ThreadFactory threadFactory() {
		if (this == PLATFORM) {
			return Thread::new;
		}
		try {
			// Thread.ofVirtual().factory(), through the public Thread.Builder interface.
			Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
			return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Virtual threads need Java 21 or later; this is Java " + Runtime.version(),
					ex);
		}
	}

	/**
	 * What one caller does.
	 */
	@FunctionalInterface
	interface Body {

		/**
		 * Runs the caller.
		 * @param index the caller's index, from 0
		 * @throws Exception if it fails
		 */
		void run(int index) throws Exception;

	}

	/**
	 * Callers started.
	 *
	 * @param threads their threads
	 * @param failures what each threw, {@code null} where it ended normally
	 */
	record Running(Thread[] threads, Throwable[] failures) {

		/**
		 * Waits for every caller to end.
		 * @throws Exception the first caller's failure, with the others suppressed
		 */
		void join() throws Exception {
			for (Thread thread : this.threads) {
				thread.join();
			}
			Exception first = null;
			for (Throwable failure : this.failures) {
				if (failure == null) {
					continue;
				}
				if (first == null) {
					first = (failure instanceof Exception ex) ? ex : new IllegalStateException(failure);
				}
				else {
					first.addSuppressed(failure);
				}
			}
			if (first != null) {
				throw first;
			}
		}

	}

}
