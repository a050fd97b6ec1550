package dev.offload;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * as large, up to {@link #MAX_CHUNK_BYTES}) so that it is ready before it is needed; only
 * if a request finds both the current chunk and the next one exhausted does it allocate a
 * chunk itself. A block larger than half a chunk gets a dedicated allocation. Chunks are
 * freed when the device closes: page-locked staging is sized by the peak of concurrent
 * copies, and freeing it would synchronize the device.
 */
final class HostStagingArena {

	static final long FIRST_CHUNK_BYTES = 4L * 1024 * 1024;

	static final long MAX_CHUNK_BYTES = 256L * 1024 * 1024;

	private final LongFunction<NativeMemory> allocator;

	private final MemoryThread memoryThread;

	private final ConcurrentLinkedDeque<NativeMemory>[] free;

	private final List<NativeMemory> allocations = new CopyOnWriteArrayList<>();

	private final AtomicBoolean growing = new AtomicBoolean();

	private final AtomicLong totalBytes = new AtomicLong();

	private final AtomicLong usedBytes = new AtomicLong();

	private final AtomicLong peakBytes = new AtomicLong();

	private volatile @Nullable Chunk current;

	private volatile @Nullable Chunk next;

	/**
	 * Creates an arena.
	 * @param allocator the counted driver allocation of page-locked memory
	 * @param memoryThread where chunks are grown
	 */
	@SuppressWarnings("unchecked")
	HostStagingArena(LongFunction<NativeMemory> allocator, MemoryThread memoryThread) {
		this.allocator = allocator;
		this.memoryThread = memoryThread;
		this.free = new ConcurrentLinkedDeque[SizeClasses.COUNT];
		for (int i = 0; i < this.free.length; i++) {
			this.free[i] = new ConcurrentLinkedDeque<>();
		}
	}

	NativeMemory acquire(long bytes) {
		long size = SizeClasses.sizeClass(bytes);
		NativeMemory block = this.free[SizeClasses.index(size)].pollFirst();
		if (block == null) {
			block = carve(size);
		}
		long used = this.usedBytes.addAndGet(size);
		if (used > this.peakBytes.get()) {
			this.peakBytes.accumulateAndGet(used, Math::max);
		}
		return block;
	}

	void release(NativeMemory block) {
		this.usedBytes.addAndGet(-block.size());
		this.free[SizeClasses.index(block.size())].offerFirst(block);
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
		for (ConcurrentLinkedDeque<NativeMemory> blocks : this.free) {
			blocks.clear();
		}
		this.current = null;
		this.next = null;
		int freed = this.allocations.size();
		for (NativeMemory allocation : this.allocations) {
			allocation.free();
		}
		this.allocations.clear();
		this.totalBytes.set(0);
		return freed;
	}

	private NativeMemory carve(long size) {
		if (size > MAX_CHUNK_BYTES / 2) {
			return allocate(size);
		}
		while (true) {
			Chunk chunk = this.current;
			if (chunk != null) {
				long offset = chunk.carve(size);
				if (offset >= 0) {
					if (offset + size > chunk.memory.size() / 2) {
						growSoon(chunk.memory.size());
					}
					return chunk.memory.slice(offset, size);
				}
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
			ready = new Chunk(allocate(chunkBytes));
		}
		this.current = ready;
	}

	private void growSoon(long chunkBytes) {
		if (this.next != null || !this.growing.compareAndSet(false, true)) {
			return;
		}
		this.memoryThread.submit(() -> {
			try {
				Chunk grown = new Chunk(allocate(nextChunkBytes(chunkBytes)));
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
		return (chunkBytes == 0) ? FIRST_CHUNK_BYTES : Math.min(MAX_CHUNK_BYTES, chunkBytes * 2);
	}

	private NativeMemory allocate(long bytes) {
		NativeMemory memory = this.allocator.apply(bytes);
		this.allocations.add(memory);
		this.totalBytes.addAndGet(memory.size());
		return memory;
	}

	/**
	 * A chunk and how much of it is carved.
	 */
	private static final class Chunk {

		final NativeMemory memory;

		final AtomicLong top = new AtomicLong();

		Chunk(NativeMemory memory) {
			this.memory = memory;
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

}
