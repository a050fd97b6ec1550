package dev.offload.test;

import org.assertj.core.api.AbstractAssert;

import dev.offload.OffloadSession;

/**
 * Assertions on an {@link OffloadSession}: open or closed, holding a stream, failed.
 */
public class OffloadSessionAssert extends AbstractAssert<OffloadSessionAssert, OffloadSession> {

	OffloadSessionAssert(OffloadSession actual) {
		super(actual, OffloadSessionAssert.class);
	}

	/**
	 * Verifies that the session is not closed.
	 * @return this assertion
	 */
	public OffloadSessionAssert isOpen() {
		isNotNull();
		if (this.actual.isClosed()) {
			failWithMessage("Expected %s to be open but it is closed", this.actual);
		}
		return this;
	}

	/**
	 * Verifies that the session holds a stream of its device's pool.
	 * @return this assertion
	 */
	public OffloadSessionAssert hasStream() {
		isNotNull();
		if (!this.actual.hasStream()) {
			failWithMessage("Expected %s to hold a stream but it holds none%n%s", this.actual,
					this.actual.device().streamPool().statistics());
		}
		return this;
	}

	/**
	 * Verifies that the session's work failed.
	 * @return this assertion
	 */
	public OffloadSessionAssert hasFailed() {
		isNotNull();
		if (this.actual.failure() == null) {
			failWithMessage("Expected %s to have failed but it has no failure", this.actual);
		}
		return this;
	}

}
