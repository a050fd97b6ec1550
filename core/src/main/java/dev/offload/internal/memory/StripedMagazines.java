package dev.offload.internal.memory;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.ThreadStripes;
import dev.offload.spi.NativeMemory;

/**
 * Small magazines of free blocks, one per stripe of threads (chosen by a hash of the
 * thread's id, so virtual threads share them too), in front of a cache's shared lists: a
 * thread that gives a block back and takes one of the same size again touches only its
 * stripe's cache line. Each slot is taken and filled by compare-and-set, so a block is
 * handed to one taker only. The device cache ({@link BufferCache}) and the page-locked
 * staging ({@link HostStagingArena}) each have their own.
 */
final class StripedMagazines {

	/**
	 * References between the first slots of two stripes: the spacing with compressed
	 * (4-byte) references, twice it without.
	 */
	private static final int STRIPE_STRIDE = ThreadStripes.SPACING_BYTES / Integer.BYTES;

	/**
	 * Stripe {@code s} owns slots {@code s * STRIPE_STRIDE} to
	 * {@code s * STRIPE_STRIDE + MemoryTuning.MAGAZINE_SLOTS - 1}; the rest is padding.
	 */
	private final AtomicReferenceArray<@Nullable NativeMemory> slots;

	private final int stripes;

	/**
	 * Creates magazines for the machine's processors
	 * ({@link ThreadStripes#stripes(int)}).
	 */
	StripedMagazines() {
		this.stripes = ThreadStripes.stripes(Runtime.getRuntime().availableProcessors());
		this.slots = new AtomicReferenceArray<>(this.stripes * STRIPE_STRIDE);
	}

	/**
	 * Returns the number of stripes.
	 * @return the stripes
	 */
	int stripes() {
		return this.stripes;
	}

	/**
	 * Takes a block of exactly {@code size} bytes from the calling thread's stripe.
	 * @param size the block's size
	 * @return the block, or {@code null} if the stripe has none of that size
	 */
	@Nullable NativeMemory take(long size) {
		return take(stripeBase(), size);
	}

	/**
	 * Takes a block of exactly {@code size} bytes from any stripe: after a miss of the
	 * thread's own and of the shared lists, so that blocks parked by a thread that went
	 * idle serve the others.
	 * @param size the block's size
	 * @return the block, or {@code null} if no stripe has one of that size
	 */
	@Nullable NativeMemory takeFromAnyStripe(long size) {
		for (int base = 0; base < this.slots.length(); base += STRIPE_STRIDE) {
			NativeMemory block = take(base, size);
			if (block != null) {
				return block;
			}
		}
		return null;
	}

	private @Nullable NativeMemory take(int base, long size) {
		for (int slot = base; slot < base + MemoryTuning.MAGAZINE_SLOTS; slot++) {
			NativeMemory block = this.slots.get(slot);
			if (block != null && block.size() == size && this.slots.compareAndSet(slot, block, null)) {
				return block;
			}
		}
		return null;
	}

	/**
	 * Parks a block in a free slot of the calling thread's stripe.
	 * @param block the block
	 * @return {@code false} if the stripe's magazine is full
	 */
	boolean park(NativeMemory block) {
		int base = stripeBase();
		for (int slot = base; slot < base + MemoryTuning.MAGAZINE_SLOTS; slot++) {
			if (this.slots.get(slot) == null && this.slots.compareAndSet(slot, null, block)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Parks a block in the calling thread's stripe: in a free slot, or, in a full
	 * magazine, in place of a block that is returned, so that a magazine holds what its
	 * threads gave back last, not the classes they used long ago. The block's size class
	 * picks the slot it displaces.
	 * @param block the block
	 * @return {@code null}, or the block displaced
	 */
	@Nullable NativeMemory parkDisplacing(NativeMemory block) {
		if (park(block)) {
			return null;
		}
		return this.slots
			.getAndSet(stripeBase() + (SizeClasses.index(block.size()) & (MemoryTuning.MAGAZINE_SLOTS - 1)), block);
	}

	/**
	 * Returns the bytes of the blocks parked now.
	 * @return the sum of their sizes
	 */
	long bytes() {
		long bytes = 0;
		for (int base = 0; base < this.slots.length(); base += STRIPE_STRIDE) {
			for (int slot = base; slot < base + MemoryTuning.MAGAZINE_SLOTS; slot++) {
				NativeMemory block = this.slots.get(slot);
				if (block != null) {
					bytes += block.size();
				}
			}
		}
		return bytes;
	}

	/**
	 * Takes every parked block out and hands it to {@code action}; a block a thread takes
	 * meanwhile is that thread's.
	 * @param action what becomes of each block
	 */
	void drain(Consumer<NativeMemory> action) {
		for (int base = 0; base < this.slots.length(); base += STRIPE_STRIDE) {
			for (int slot = base; slot < base + MemoryTuning.MAGAZINE_SLOTS; slot++) {
				NativeMemory block = this.slots.get(slot);
				if (block != null && this.slots.compareAndSet(slot, block, null)) {
					action.accept(block);
				}
			}
		}
	}

	/**
	 * Empties every magazine, for an owner that drops the blocks (their memory freed with
	 * what they were carved from).
	 */
	void clear() {
		drain((block) -> {
		});
	}

	/** The first slot of the calling thread's stripe. */
	private int stripeBase() {
		return ThreadStripes.current(this.stripes) * STRIPE_STRIDE;
	}

}
