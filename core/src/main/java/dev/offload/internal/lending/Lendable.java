package dev.offload.internal.lending;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.jspecify.annotations.Nullable;

/**
 * An item of a {@link LendingPool} and its state there: {@link #IDLE}, {@link #IN_USE} or
 * {@link #DISCARDED}, changed only by compare-and-set so that an item is never lent
 * twice. The state sits between padding fields so that threads lending neighbouring items
 * do not share a cache line.
 */
public abstract class Lendable extends LendableFields {

	/** In the pool, free to lend. */
	public static final int IDLE = 0;

	/** Lent. */
	public static final int IN_USE = 1;

	/** Out of the pool for good: destroyed, or being destroyed. */
	public static final int DISCARDED = 2;

	private static final VarHandle STATE;

	private static final VarHandle HINTED;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(LendableState.class, "state", int.class);
			HINTED = MethodHandles.lookup().findVarHandle(LendableState.class, "hinted", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** The index of the item's class in its pool. */
	final int classIndex;

	/** Times lent; written only by the borrower, published by the state changes. */
	long borrows;

	/** How long the latest borrow waited; written only by the borrower. */
	long waitNanos;

	/** The tenant that holds the item; written by the borrower, read by its release. */
	@Nullable LendingTenant tenant;

	/**
	 * Creates an idle item.
	 * @param classIndex the index of the item's class in its pool
	 */
	protected Lendable(int classIndex) {
		this.classIndex = classIndex;
	}

	/**
	 * Returns the index of the item's class in its pool.
	 * @return the index
	 */
	public final int classIndex() {
		return this.classIndex;
	}

	/**
	 * Returns how long the borrow that lent the item last waited; read by the borrower.
	 * @return the time in nanoseconds, 0 for a borrow that found an idle item at once
	 */
	public final long waitNanos() {
		return this.waitNanos;
	}

	/**
	 * Returns the item's state.
	 * @return {@link #IDLE}, {@link #IN_USE} or {@link #DISCARDED}
	 */
	public final int state() {
		return (int) STATE.getVolatile(this);
	}

	final boolean compareAndSetState(int expected, int next) {
		return STATE.compareAndSet(this, expected, next);
	}

	/**
	 * Marks the item as having a hint in its class's {@link IdleHints}, unless it has
	 * one.
	 * @return whether this call marked it: its caller pushes the hint
	 */
	final boolean markHinted() {
		return !((boolean) HINTED.getVolatile(this)) && HINTED.compareAndSet(this, false, true);
	}

	/** Notes that the item's hint left its class's {@link IdleHints}. */
	final void clearHinted() {
		HINTED.setVolatile(this, false);
	}

}

/** Padding before the state. */
abstract class LendablePadding {

	long p01, p02, p03, p04, p05, p06, p07;

}

/**
 * The state, between paddings, and beside it whether a hint names the item in its class's
 * {@link IdleHints}: a release reads it just after the state it changed, on the same
 * cache line.
 */
abstract class LendableState extends LendablePadding {

	volatile int state;

	volatile boolean hinted;

}

/** Padding after the state. */
abstract class LendableFields extends LendableState {

	long p11, p12, p13, p14, p15, p16, p17;

}
