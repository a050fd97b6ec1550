package dev.offload.internal.lending;

import java.util.List;

/**
 * What the items of a {@link LendingPool} are: how they are made and destroyed, whether
 * their source can still lend, and what a borrower that gets none sees.
 *
 * @param <E> the items
 */
public interface LendingItems<E extends Lendable> {

	/**
	 * Makes items of a class; called while holding the pool's lock.
	 * @param classIndex the class
	 * @param count how many to make
	 * @return at least one item, of {@code classIndex}, fewer than {@code count} if some
	 * could not be made
	 * @throws RuntimeException if none could be made
	 */
	List<E> create(int classIndex, int count);

	/**
	 * Destroys an item that left the pool; a {@link RuntimeException} is logged.
	 * @param item the item
	 */
	void destroy(E item);

	/**
	 * Throws if the items' source can lend no more (a failed device); called by every
	 * borrow before the pool checks that it is open.
	 */
	void checkLending();

	/**
	 * Tells whether the background growth may go on making items.
	 * @return {@code false} once the items' source failed
	 */
	boolean canCreate();

	/**
	 * Runs a background growth.
	 * @param task the growth
	 * @throws RuntimeException if it cannot: the borrowers grow the pool themselves
	 */
	void execute(Runnable task);

	/**
	 * Returns the exception of a borrow from a shut down pool.
	 * @return the exception to throw
	 */
	RuntimeException closed();

	/**
	 * Returns the exception of a borrow that waited its class's borrow timeout; the
	 * borrower still counts as waiting.
	 * @param classIndex the class
	 * @param waitedNanos how long it waited
	 * @return the exception to throw
	 */
	RuntimeException timedOut(int classIndex, long waitedNanos);

	/**
	 * Returns the exception of a borrow whose caller's deadline passed before an item was
	 * free and before its class's borrow timeout.
	 * @param classIndex the class
	 * @param waitedNanos how long it waited
	 * @return the exception to throw
	 */
	RuntimeException deadlinePassed(int classIndex, long waitedNanos);

	/**
	 * Returns the exception of a borrow interrupted while it waited.
	 * @param cause the interrupt
	 * @return the exception to throw
	 */
	RuntimeException interrupted(InterruptedException cause);

	/**
	 * Names a class, for the log.
	 * @param classIndex the class
	 * @return its name
	 */
	default String className(int classIndex) {
		return String.valueOf(classIndex);
	}

}
