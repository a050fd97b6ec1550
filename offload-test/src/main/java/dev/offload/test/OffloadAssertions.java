package dev.offload.test;

import java.util.concurrent.CompletableFuture;

import org.assertj.core.api.Assertions;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPool;

/**
 * Entry point of the AssertJ assertions on Offload's pools, devices, sessions and
 * futures; it extends AssertJ's {@link Assertions}, so that one static import of
 * {@code OffloadAssertions.assertThat} serves every assertion.
 */
public class OffloadAssertions extends Assertions {

	/**
	 * Creates an instance for subclasses that add their own entry points; the methods are
	 * static.
	 */
	protected OffloadAssertions() {
	}

	/**
	 * Starts assertions on a stream pool.
	 * @param actual the pool
	 * @return the assertion
	 */
	public static StreamPoolAssert assertThat(StreamPool actual) {
		return new StreamPoolAssert(actual);
	}

	/**
	 * Starts assertions on a device.
	 * @param actual the device
	 * @return the assertion
	 */
	public static DeviceAssert assertThat(Device actual) {
		return new DeviceAssert(actual);
	}

	/**
	 * Starts assertions on a device registry.
	 * @param actual the registry
	 * @return the assertion
	 */
	public static DeviceRegistryAssert assertThat(DeviceRegistry actual) {
		return new DeviceRegistryAssert(actual);
	}

	/**
	 * Starts assertions on a session.
	 * @param actual the session
	 * @return the assertion
	 */
	public static OffloadSessionAssert assertThat(OffloadSession actual) {
		return new OffloadSessionAssert(actual);
	}

	/**
	 * Starts assertions on a future, such as one from {@code OffloadTemplate.submit}.
	 * @param <T> the future's result type
	 * @param actual the future
	 * @return the assertion
	 */
	public static <T> OffloadFutureAssert<T> assertThat(CompletableFuture<T> actual) {
		return new OffloadFutureAssert<>(actual);
	}

}
