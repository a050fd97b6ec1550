package dev.offload.test;

import org.assertj.core.api.AbstractAssert;

import dev.offload.Device;
import dev.offload.MemoryStatistics;

/**
 * Assertions on a {@link Device}: its health, the failure that ended it, and the memory
 * it still holds.
 */
public class DeviceAssert extends AbstractAssert<DeviceAssert, Device> {

	DeviceAssert(Device actual) {
		super(actual, DeviceAssert.class);
	}

	/**
	 * Verifies that the device has not failed.
	 * @return this assertion
	 */
	public DeviceAssert isHealthy() {
		isNotNull();
		if (!this.actual.isHealthy()) {
			failWithMessage("Expected device %d to be healthy but it failed with %s%n%s", this.actual.id(),
					this.actual.failure().map(String::valueOf).orElse("no recorded failure"),
					this.actual.streamPool().statistics());
		}
		return this;
	}

	/**
	 * Verifies that the device failed with a failure of the given type.
	 * @param type the expected type of the failure
	 * @return this assertion
	 */
	public DeviceAssert hasFailedWith(Class<? extends Throwable> type) {
		Throwable failure = failure();
		if (!type.isInstance(failure)) {
			failWithMessage("Expected device %d to have failed with %s but it failed with %s", this.actual.id(),
					type.getName(), failure);
		}
		return this;
	}

	/**
	 * Verifies that the device failed with a failure whose message contains the given
	 * text.
	 * @param message the text the failure's message contains
	 * @return this assertion
	 */
	public DeviceAssert hasFailedWith(String message) {
		Throwable failure = failure();
		if (failure.getMessage() == null || !failure.getMessage().contains(message)) {
			failWithMessage("Expected device %d to have failed with a message containing \"%s\" but it failed with %s",
					this.actual.id(), message, failure);
		}
		return this;
	}

	/**
	 * Verifies that the device holds no memory beyond its buffer cache: no device or
	 * page-locked buffer is in use, no session holds a reservation and nobody waits for
	 * the budget. Call it after a test has closed its sessions (and their
	 * {@code closeAsync} futures completed) to show that nothing leaked.
	 * @return this assertion
	 */
	public DeviceAssert holdsNoMemoryBeyondItsCache() {
		isNotNull();
		MemoryStatistics statistics = this.actual.memoryStatistics();
		if (statistics.usedBytes() != 0 || statistics.hostUsedBytes() != 0 || statistics.waiting() != 0) {
			failWithMessage(
					"Expected device %d to hold no memory beyond its cache but %d device bytes and %d page-locked bytes "
							+ "are in use and %d waiting for the budget (a session or buffer not closed?)%n%s",
					this.actual.id(), statistics.usedBytes(), statistics.hostUsedBytes(), statistics.waiting(),
					statistics);
		}
		return this;
	}

	private Throwable failure() {
		isNotNull();
		Throwable failure = this.actual.failure().orElse(null);
		if (this.actual.isHealthy() || failure == null) {
			failWithMessage("Expected device %d to have failed but it is healthy%n%s", this.actual.id(),
					this.actual.streamPool().statistics());
		}
		return failure;
	}

}
