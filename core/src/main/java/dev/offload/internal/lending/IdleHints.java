package dev.offload.internal.lending;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.jspecify.annotations.Nullable;

/**
 * Where a borrower of a class finds an idle item in constant time however many items the
 * class has: a lock-free stack (last in, first out: the item given back last is the
 * warmest) of hints, each naming an item that was idle when the hint was pushed. A hint
 * is only a hint: the item's state stays the one authority, changed by compare-and-set,
 * so a hint whose item was lent meanwhile (by the fast path of the thread that released
 * it last, or handed to a waiter) or destroyed is dropped when popped.
 * <p>
 * Each item has at most one hint ({@link Lendable#markHinted()}), so the stack never
 * holds more hints than items, however often the fast path lends an item without popping
 * its hint. Whoever pops a hint clears the mark and only then tries the item's state;
 * whoever makes an item idle changes the state and only then reads the mark, pushing a
 * hint if there is none. One of the two sees the other's write, so an idle item always
 * has a hint in the stack, or is being tried by the borrower that popped it: a borrower
 * that finds the stack empty may conclude that the class has no idle item it could have
 * taken.
 * <p>
 * The hints of destroyed items are dropped when popped, and unlinked by {@link #sweep()}
 * once the class has destroyed about as many items as it holds, so that they neither pile
 * up nor keep destroyed items reachable.
 */
final class IdleHints {

	private static final VarHandle TOP;

	static {
		try {
			TOP = MethodHandles.lookup().findVarHandle(IdleHints.class, "top", Hint.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private volatile @Nullable Hint top;

	/**
	 * Hints that an item was just made idle, unless a hint names it already.
	 * @param item an item of the class
	 */
	void offer(Lendable item) {
		if (item.markHinted()) {
			// A new node each time: a node is never pushed twice, so a pop's
			// compare-and-set cannot succeed on a node that left and came back.
			Hint hint = new Hint(item);
			Hint current;
			do {
				current = this.top;
				hint.next = current;
			}
			while (!TOP.compareAndSet(this, current, hint));
		}
	}

	/**
	 * Takes an idle item of the class, popping hints until one names an item whose state
	 * changes from {@link Lendable#IDLE} to {@code newState}.
	 * @param newState {@link Lendable#IN_USE} to lend the item,
	 * {@link Lendable#DISCARDED} to destroy it
	 * @return the item, now in {@code newState}; {@code null} if the stack ran out
	 */
	@Nullable Lendable take(int newState) {
		Hint hint;
		while ((hint = pop()) != null) {
			Lendable item = hint.item;
			item.clearHinted();
			if (item.compareAndSetState(Lendable.IDLE, newState)) {
				return item;
			}
		}
		return null;
	}

	private @Nullable Hint pop() {
		Hint current;
		do {
			current = this.top;
			if (current == null) {
				return null;
			}
		}
		while (!TOP.compareAndSet(this, current, current.next));
		return current;
	}

	/**
	 * Unlinks the hints of destroyed items; one sweep at a time (the class's monitor). A
	 * pop that read a link before the sweep changed it may put an unlinked hint back on
	 * top, where the next pop drops it; no hint of a live item is ever unlinked.
	 */
	void sweep() {
		Hint current = this.top;
		while (current != null && current.item.state() == Lendable.DISCARDED) {
			current = TOP.compareAndSet(this, current, current.next) ? current.next : this.top;
		}
		Hint live = current;
		while (live != null) {
			Hint next = live.next;
			while (next != null && next.item.state() == Lendable.DISCARDED) {
				next = next.next;
			}
			if (next != live.next) {
				live.next = next;
			}
			live = next;
		}
	}

	/**
	 * Counts the hints in the stack, for tests.
	 * @return the number
	 */
	int size() {
		int size = 0;
		for (Hint hint = this.top; hint != null; hint = hint.next) {
			size++;
		}
		return size;
	}

	/** A hint: an item that was idle when it was pushed, and the hint below it. */
	private static final class Hint {

		final Lendable item;

		volatile @Nullable Hint next;

		Hint(Lendable item) {
			this.item = item;
		}

	}

}
