package dev.offload.test;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.assertj.core.api.CompletableFutureAssert;

/**
 * Assertions on a future from the template ({@code OffloadTemplate.submit}) that wait for
 * it within a bound, beside AssertJ's own assertions on futures.
 *
 * @param <T> the future's result type
 */
public class OffloadFutureAssert<T> extends CompletableFutureAssert<T> {

	/** How long {@link #failsWith(Class)} waits for the future before it gives up. */
	static final Duration FAILURE_WAIT = Duration.ofSeconds(30);

	OffloadFutureAssert(CompletableFuture<T> actual) {
		super(actual);
	}

	/**
	 * Verifies that the future completes normally within the given time.
	 * @param timeout how long to wait
	 * @return this assertion
	 */
	public OffloadFutureAssert<T> completesWithin(Duration timeout) {
		isNotNull();
		try {
			this.actual.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			failWithMessage("Expected the future to complete within %s but it is still running", timeout);
		}
		catch (ExecutionException | CompletionException ex) {
			failWithMessage("Expected the future to complete within %s but it failed with %s", timeout, ex.getCause());
		}
		catch (CancellationException ex) {
			failWithMessage("Expected the future to complete within %s but it was cancelled", timeout);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failWithMessage("Interrupted while waiting for the future");
		}
		return this;
	}

	/**
	 * Verifies that the future fails with a failure of the given type (waits up to 30
	 * seconds).
	 * @param type the expected type of the failure
	 * @return this assertion
	 */
	public OffloadFutureAssert<T> failsWith(Class<? extends Throwable> type) {
		isNotNull();
		try {
			T value = this.actual.get(FAILURE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
			failWithMessage("Expected the future to fail with %s but it completed with %s", type.getName(), value);
		}
		catch (TimeoutException ex) {
			failWithMessage("Expected the future to fail with %s but it is still running after %s", type.getName(),
					FAILURE_WAIT);
		}
		catch (ExecutionException | CompletionException ex) {
			if (!type.isInstance(ex.getCause())) {
				failWithMessage("Expected the future to fail with %s but it failed with %s", type.getName(),
						ex.getCause());
			}
		}
		catch (CancellationException ex) {
			// A cancelled future's failure is the cancellation itself.
			if (!type.isInstance(ex)) {
				failWithMessage("Expected the future to fail with %s but it was cancelled", type.getName());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failWithMessage("Interrupted while waiting for the future");
		}
		return this;
	}

}
