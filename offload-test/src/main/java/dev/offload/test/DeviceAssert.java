package dev.offload.test;

import org.assertj.core.api.AbstractAssert;

import dev.offload.Device;

/**
 * Assertions on a {@link Device}: its health and the failure that ended it.
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
