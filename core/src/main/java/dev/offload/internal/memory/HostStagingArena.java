package dev.offload.internal.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.NativeMemory;

/**
 * Page-locked host memory for staging copies, carved from large chunks so that
 * {@code cuMemHostAlloc} (which can take a millisecond and synchronizes with the device)
 * runs once per chunk, on the device's {@link MemoryThread}, not per buffer on a request.
 * <p>
 * A block is carved from the current chunk by bumping its top (one compare-and-set); a
 * block given back goes to its size class's free list and serves the next request of that
 * class. When the current chunk is half used, the memory thread allocates the next (twice
 * as large, up to {@link MemoryTuning#STAGING_MAX_CHUNK_BYTES}) so that it is ready
 * before it is needed; only if a request finds both the current chunk and the next one
 * exhausted does it allocate a chunk itself. A block larger than half a chunk gets a
 * dedicated allocation.
 * <p>
 * Staging follows the peak of concurrent copies, so a burst leaves chunks behind: every
 * {@link MemoryTuning#STAGING_SWEEP_PERIOD_NANOS} the memory thread gives back each chunk
 * (and dedicated allocation) none of whose blocks was taken or given back for
 * {@link MemoryTuning#STAGING_IDLE_SWEEPS} sweeps and none of whose blocks is in use,
 * except the current chunk and the one grown ahead. Freeing page-locked memory can
 * synchronize the device, so only the memory thread does it, never a request or a
 * completion thread. Each chunk counts the blocks taken from it; a sweep retires a chunk
 * only by turning that count from 0 to retired in one compare-and-set, and a request
 * takes a block only by raising it from a count that is not retired, so a block in use
 * never loses its memory: a request that polled a free block of a chunk retired meanwhile
 * drops it and looks again. The rest is freed when the device closes.
 * <p>
 * Blocks of up to {@link MemoryTuning#HOST_MAGAZINE_MAX_BLOCK_BYTES} given back go first
 * to a small magazine of the releasing thread's stripe (a compare-and-set), from which
 * that stripe's next request of the same size takes them: a request and its release then
 * touch neither the free lists nor their chunk's count. A block in a magazine still
 * counts as taken from its chunk; each sweep first empties the magazines into the free
 * lists, so that an idle chunk can be retired.
 */
final class HostStagingArena {

	private final LongFunction<NativeMemory> allocator;

	/** The counted driver free, run on the memory thread. */
	private final Consumer<NativeMemory> freer;

	private final MemoryThread memoryThread;

	private final ConcurrentLinkedDeque<NativeMemory>[] free;

	/** Every chunk and dedicated allocation held; under the arena's monitor. */
	private final List<Chunk> chunks = new ArrayList<>();

	/** The chunk of every block carved (by identity). */
	private final ConcurrentHashMap<Identity, Chunk> owners = new ConcurrentHashMap<>();

	private final AtomicInteger sweeps = new AtomicInteger();

	private final long sweepPeriodNanos;

	private final AtomicBoolean sweeping = new AtomicBoolean();

	private final AtomicBoolean growing = new AtomicBoolean();

	private final AtomicLong totalBytes = new AtomicLong();

	private final AtomicLong usedBytes = new AtomicLong();

	private final AtomicLong peakBytes = new AtomicLong();

	/** The magazines in front of the free lists. */
	private final StripedMagazines magazines = new StripedMagazines();

	private volatile @Nullable Chunk current;

	private volatile @Nullable Chunk next;

	/**
	 * Creates an arena.
	 * @param allocator the counted driver allocation of page-locked memory
	 * @param freer the counted driver free of an idle chunk
	 * @param memoryThread where chunks are grown and idle ones freed
	 */
	HostStagingArena(LongFunction<NativeMemory> allocator, Consumer<NativeMemory> freer, MemoryThread memoryThread) {
		this(allocator, freer, memoryThread, MemoryTuning.STAGING_SWEEP_PERIOD_NANOS);
	}

	/**
	 * Creates an arena whose memory thread looks for idle chunks every
	 * {@code sweepPeriodNanos}.
	 */
	@SuppressWarnings("unchecked")
	HostStagingArena(LongFunction<NativeMemory> allocator, Consumer<NativeMemory> freer, MemoryThread memoryThread,
			long sweepPeriodNanos) {
		this.sweepPeriodNanos = sweepPeriodNanos;
		this.allocator = allocator;
		this.freer = freer;
		this.memoryThread = memoryThread;
		this.free = new ConcurrentLinkedDeque[SizeClasses.COUNT];
		for (int i = 0; i < this.free.length; i++) {
			this.free[i] = new ConcurrentLinkedDeque<>();
		}
	}

	NativeMemory acquire(long bytes) {
		long size = SizeClasses.sizeClass(bytes);
		boolean small = size <= MemoryTuning.HOST_MAGAZINE_MAX_BLOCK_BYTES;
		NativeMemory block = small ? this.magazines.take(size) : null;
		if (block == null) {
			block = pollFree(size);
		}
		if (block == null && small) {
			block = this.magazines.takeFromAnyStripe(size);
		}
		if (block == null) {
			block = carve(size);
		}
		long used = this.usedBytes.addAndGet(size);
		if (used > this.peakBytes.get()) {
			this.peakBytes.accumulateAndGet(used, Math::max);
		}
		return block;
	}

	private @Nullable NativeMemory pollFree(long size) {
		ConcurrentLinkedDeque<NativeMemory> blocks = this.free[SizeClasses.index(size)];
		NativeMemory block;
		while ((block = blocks.pollFirst()) != null) {
			Chunk owner = this.owners.get(new Identity(block));
			if (owner != null && owner.enter(this.sweeps.get())) {
				return block;
			}
			// Its chunk was given back while the block waited: the block went with it.
		}
		return null;
	}

	void release(NativeMemory block) {
		this.usedBytes.addAndGet(-block.size());
		if (block.size() <= MemoryTuning.HOST_MAGAZINE_MAX_BLOCK_BYTES && this.magazines.park(block)) {
			return;
		}
		releaseToFreeList(block);
	}

	/** Back to the block's free list, and its chunk's count down. */
	private void releaseToFreeList(NativeMemory block) {
		Chunk owner = this.owners.get(new Identity(block));
		// Back in the free list before the chunk's count falls: a chunk is retired only
		// with none of its blocks on their way back.
		this.free[SizeClasses.index(block.size())].offerFirst(block);
		if (owner != null) {
			owner.exit(this.sweeps.get());
		}
	}

	long usedBytes() {
		return this.usedBytes.get();
	}

	long peakBytes() {
		return this.peakBytes.get();
	}

	/** Returns the page-locked bytes the arena holds: its chunks and dedicated blocks. */
	long totalBytes() {
		return this.totalBytes.get();
	}

	/**
	 * Returns the page-locked bytes held and not in use: free blocks and uncarved chunk
	 * space.
	 */
	long cachedBytes() {
		return Math.max(0, this.totalBytes.get() - this.usedBytes.get());
	}

	/**
	 * Frees every chunk; called when the device closes, with no block in use.
	 * @return the driver frees made
	 */
	int close() {
		if (this.totalBytes.get() == 0) {
			// Nothing was ever allocated (a device that staged nothing): no free list
			// holds a block.
			return 0;
		}
		this.magazines.clear();
		for (ConcurrentLinkedDeque<NativeMemory> blocks : this.free) {
			blocks.clear();
		}
		this.owners.clear();
		List<Chunk> held;
		synchronized (this) {
			this.current = null;
			this.next = null;
			held = new ArrayList<>(this.chunks);
			this.chunks.clear();
		}
		for (Chunk chunk : held) {
			chunk.memory.free();
		}
		this.totalBytes.set(0);
		return held.size();
	}

	/**
	 * Gives back the chunks and dedicated allocations unused for
	 * {@link MemoryTuning#STAGING_IDLE_SWEEPS} sweeps, but the current chunk and the
	 * next; run by the memory thread every
	 * {@link MemoryTuning#STAGING_SWEEP_PERIOD_NANOS}.
	 * @return the allocations freed
	 */
	int releaseIdle() {
		// A block parked in a magazine counts as taken from its chunk: back to the free
		// lists with them (which counts as a use of the chunk in this sweep).
		this.magazines.drain(this::releaseToFreeList);
		int sweep = this.sweeps.incrementAndGet();
		List<Chunk> retired = new ArrayList<>();
		synchronized (this) {
			for (Chunk chunk : this.chunks) {
				if (chunk != this.current && chunk != this.next
						&& sweep - chunk.lastUsedSweep >= MemoryTuning.STAGING_IDLE_SWEEPS && chunk.retire()) {
					retired.add(chunk);
				}
			}
			this.chunks.removeAll(retired);
		}
		if (retired.isEmpty()) {
			return 0;
		}
		for (ConcurrentLinkedDeque<NativeMemory> blocks : this.free) {
			if (!blocks.isEmpty()) {
				blocks.removeIf((block) -> retired.contains(this.owners.get(new Identity(block))));
			}
		}
		this.owners.values().removeIf(retired::contains);
		for (Chunk chunk : retired) {
			this.totalBytes.addAndGet(-chunk.memory.size());
			this.freer.accept(chunk.memory);
		}
		return retired.size();
	}

	private NativeMemory carve(long size) {
		if (size > MemoryTuning.STAGING_MAX_CHUNK_BYTES / 2) {
			// A dedicated allocation: a chunk of one block, the whole of it.
			Chunk dedicated = allocate(size, 1);
			dedicated.top.set(dedicated.memory.size());
			this.owners.put(new Identity(dedicated.memory), dedicated);
			return dedicated.memory;
		}
		while (true) {
			Chunk chunk = this.current;
			if (chunk != null && chunk.enter(this.sweeps.get())) {
				long offset = chunk.carve(size);
				if (offset >= 0) {
					if (offset + size > chunk.memory.size() / 2) {
						growSoon(chunk.memory.size());
					}
					NativeMemory block = chunk.memory.slice(offset, size);
					this.owners.put(new Identity(block), chunk);
					return block;
				}
				chunk.exit(this.sweeps.get());
			}
			advance(chunk, size);
		}
	}

	/**
	 * Moves to the next chunk, which the memory thread allocated; allocates it here only
	 * if it is not there yet or too small.
	 */
	private synchronized void advance(@Nullable Chunk exhausted, long size) {
		if (this.current != exhausted) {
			return;
		}
		Chunk ready = this.next;
		this.next = null;
		if (ready == null || ready.memory.size() < size) {
			long chunkBytes = Math.max(size, nextChunkBytes((exhausted != null) ? exhausted.memory.size() : 0));
			ready = allocate(chunkBytes, 0);
		}
		this.current = ready;
	}

	private void growSoon(long chunkBytes) {
		if (this.next != null || !this.growing.compareAndSet(false, true)) {
			return;
		}
		this.memoryThread.submit(() -> {
			try {
				Chunk grown = allocate(nextChunkBytes(chunkBytes), 0);
				synchronized (this) {
					if (this.next == null) {
						this.next = grown;
					}
				}
			}
			finally {
				this.growing.set(false);
			}
		});
	}

	private static long nextChunkBytes(long chunkBytes) {
		return (chunkBytes == 0) ? MemoryTuning.STAGING_FIRST_CHUNK_BYTES
				: Math.min(MemoryTuning.STAGING_MAX_CHUNK_BYTES, chunkBytes * 2);
	}

	/**
	 * Allocates a chunk, with {@code users} blocks taken already (1 for a dedicated
	 * allocation, which no sweep may retire before its block is given back).
	 */
	private Chunk allocate(long bytes, int users) {
		NativeMemory memory = this.allocator.apply(bytes);
		Chunk chunk = new Chunk(memory, this.sweeps.get(), users);
		synchronized (this) {
			this.chunks.add(chunk);
		}
		this.totalBytes.addAndGet(memory.size());
		if (this.sweeping.compareAndSet(false, true)) {
			this.memoryThread.every(this.sweepPeriodNanos, this::releaseIdle);
		}
		return chunk;
	}

	/**
	 * A chunk and how much of it is carved.
	 */
	private static final class Chunk {

		final NativeMemory memory;

		final AtomicLong top = new AtomicLong();

		/** The blocks taken from the chunk and not given back; -1 once retired. */
		final AtomicInteger users = new AtomicInteger();

		/** The last sweep during which a block was taken or given back. */
		volatile int lastUsedSweep;

		Chunk(NativeMemory memory, int sweep, int users) {
			this.memory = memory;
			this.lastUsedSweep = sweep;
			this.users.set(users);
		}

		/**
		 * Counts a block taken; fails once the chunk is retired.
		 */
		boolean enter(int sweep) {
			while (true) {
				int count = this.users.get();
				if (count < 0) {
					return false;
				}
				if (this.users.compareAndSet(count, count + 1)) {
					if (this.lastUsedSweep != sweep) {
						this.lastUsedSweep = sweep;
					}
					return true;
				}
			}
		}

		void exit(int sweep) {
			if (this.lastUsedSweep != sweep) {
				this.lastUsedSweep = sweep;
			}
			this.users.decrementAndGet();
		}

		/**
		 * Retires the chunk if none of its blocks is taken.
		 */
		boolean retire() {
			return this.users.compareAndSet(0, -1);
		}

		/**
		 * Returns the offset of a new block of {@code size}, or -1 if the chunk is full.
		 */
		long carve(long size) {
			while (true) {
				long offset = this.top.get();
				if (offset + size > this.memory.size()) {
					return -1;
				}
				if (this.top.compareAndSet(offset, offset + size)) {
					return offset;
				}
			}
		}

	}

	/**
	 * A block as a map key: by identity, whatever the backend's {@code equals}.
	 */
	private record Identity(NativeMemory memory) {

		@Override
		public boolean equals(@Nullable Object other) {
			return other instanceof Identity identity && identity.memory == this.memory;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this.memory);
		}

	}

}
