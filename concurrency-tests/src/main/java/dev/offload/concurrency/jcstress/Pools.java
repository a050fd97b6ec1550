package dev.offload.concurrency.jcstress;

import java.time.Duration;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamBorrowTimeoutException;
import dev.offload.StreamPoolConfig;
import dev.offload.concurrency.CountingBackend;
import dev.offload.concurrency.CountingItems;
import dev.offload.internal.lending.LendingPool;

/**
 * Devices on a {@link CountingBackend} for the jcstress tests, and borrowing through the
 * public API.
 */
final class Pools {

	/** The borrow timeout of bounded pools: a full pool answers at once. */
	static final Duration NO_WAIT = Duration.ofNanos(1);

	private Pools() {
	}

	/**
	 * Returns the device of a new registry whose pool starts with one stream.
	 * @param backend the backend
	 * @param maxSize the bound, 0 for none
	 * @return the device
	 */
	static Device device(CountingBackend backend, int maxSize) {
		return device(backend, maxSize, NO_WAIT);
	}

	/**
	 * Returns the device of a new registry whose pool starts with one stream.
	 * @param backend the backend
	 * @param maxSize the bound, 0 for none
	 * @param borrowTimeout how long a borrow from a full pool waits
	 * @return the device
	 */
	static Device device(CountingBackend backend, int maxSize, Duration borrowTimeout) {
		return registry(backend, maxSize, borrowTimeout).device(0);
	}

	/**
	 * Returns a new registry of one device whose pool starts with one stream, and whose
	 * close does not wait.
	 * @param backend the backend
	 * @param maxSize the bound, 0 for none
	 * @param borrowTimeout how long a borrow from a full pool waits
	 * @return the registry
	 */
	static DeviceRegistry registry(CountingBackend backend, int maxSize, Duration borrowTimeout) {
		return DeviceRegistry.builder(backend)
			.streamPool(new StreamPoolConfig(1, maxSize, borrowTimeout))
			.awaitTermination(Duration.ZERO)
			.build();
	}

	/**
	 * Borrows {@code count} streams at once and gives them back, so that the pool has
	 * that many idle streams.
	 * @param device the device
	 * @param count the streams to create
	 */
	static void warm(Device device, int count) {
		OffloadSession[] sessions = new OffloadSession[count];
		for (int i = 0; i < count; i++) {
			sessions[i] = device.openSession();
			sessions[i].streamId();
		}
		for (OffloadSession session : sessions) {
			session.close();
		}
	}

	/**
	 * Opens a session and borrows its stream.
	 * @param device the device
	 * @return the session, holding its stream, or {@code null} if the pool stayed full
	 */
	static OffloadSession borrow(Device device) {
		OffloadSession session = device.openSession();
		try {
			session.streamId();
			return session;
		}
		catch (StreamBorrowTimeoutException ex) {
			session.close();
			return null;
		}
	}

	/**
	 * Borrows an item of a lending pool and tells which.
	 * @param pool the pool
	 * @param classIndex the item's class
	 * @return the item's number, or -1 if the pool stayed full
	 */
	static int borrowId(LendingPool<CountingItems.Item> pool, int classIndex) {
		try {
			return pool.borrow(classIndex).id();
		}
		catch (CountingItems.TimedOut ex) {
			return -1;
		}
	}

	/**
	 * Lends an item of class 0 whose idle hint is stale: it is borrowed, released and
	 * lent again on the calling thread's fast path, which leaves the hint its release
	 * pushed.
	 * @param pool the pool
	 * @return the item, lent
	 */
	static CountingItems.Item lendWithStaleHint(LendingPool<CountingItems.Item> pool) {
		pool.release(pool.borrow(0));
		return pool.borrow(0);
	}

	/**
	 * Borrows a stream and tells which.
	 * @param device the device
	 * @return the stream's id, or -1 if the pool stayed full
	 */
	static int borrowId(Device device) {
		OffloadSession session = borrow(device);
		return (session != null) ? session.streamId() : -1;
	}

}
