package dev.offload.internal.memory;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * The memory of one device as Offload hands it out: freed device blocks kept for reuse
 * per {@linkplain SizeClasses size class}, page-locked staging from a
 * {@link HostStagingArena}, and every driver allocation and free counted.
 * <p>
 * No call that synchronizes the device runs on a request's path or on the completion
 * thread after warm-up: a hit is a poll of a lock-free list; a miss is allocated in the
 * order of the session's stream ({@code cuMemAllocAsync} from the device's default pool);
 * a block that does not fit in the cache is freed by the {@link MemoryThread} in the
 * order of its own stream ({@code cuMemFreeAsync}). The default pool's release threshold
 * (0, and {@code cuMemPoolSetAttribute} is not in JCuda) only decides what the driver
 * keeps between a free and the next allocation: the cache keeps the blocks in front of
 * it, so only misses pay for it.
 * <p>
 * The cache holds freed blocks up to {@code maxBytes}, and beyond it as long as the
 * memory in use plus the cache stay within the budget (or the device's total without
 * one), as PyTorch's caching allocator does: a varying working set within the budget is
 * served from the cache after warm-up.
 * <p>
 * When the driver has no memory, the cache is emptied, the frees in flight are waited for
 * and the allocation retried once; then a {@link dev.offload.DeviceOutOfMemoryException}.
 * <p>
 * In front of the shared per-class lists, blocks of up to
 * {@link MemoryTuning#DEVICE_MAGAZINE_MAX_BLOCK_BYTES} go to small magazines, one per
 * stripe of threads (chosen by a hash of the thread's id, so virtual threads share them
 * too): a thread that closes a buffer and allocates one of the same class again touches
 * only its stripe's cache line, not the shared lists, the cached-bytes counter or a list
 * node, which made a hit collapse under many threads. A block in a magazine is cached
 * like any other: {@link #cachedBytes()} counts it, {@link #trimDevice()} (and so the
 * out-of-memory retry and shutdown) frees it, and a miss of the magazine and of the
 * shared list takes it from another stripe before allocating, so blocks parked by a
 * thread that went idle or ended serve the others. The magazines hold at most
 * {@link #magazineCapacityBytes}; a block is parked only while the shared list's bytes
 * plus that capacity stay within the cache's bound, and a block for the shared lists is
 * weighed with the magazines' bytes, so the bound holds as it did without them.
 */
final class BufferCache {

	private final int deviceId;

	private final BackendDevice backendDevice;

	private final long totalBytes;

	private final long maxBytes;

	/**
	 * The device memory the cache may hold beyond {@link #maxBytes} with what is in use:
	 * the budget, or the device's total if smaller.
	 */
	private final long ceilingBytes;

	/** The device memory in use: read only when the cache nears its bound, or fails. */
	private final LongSupplier usedBytes;

	/** Makes the exceptions of allocations that found no memory. */
	private final MemoryFailures failures;

	private final MemoryThread memoryThread;

	private final HostStagingArena hostArena;

	private final ConcurrentLinkedDeque<NativeMemory>[] deviceBlocks;

	/** The device bytes in {@link #deviceBlocks}; the magazines' are not in it. */
	private final AtomicLong cachedBytes = new AtomicLong();

	/** The magazines in front of the shared lists. */
	private final StripedMagazines magazines = new StripedMagazines();

	/** The most the magazines can hold together. */
	private final long magazineCapacityBytes;

	/**
	 * Set before a block is first parked in a magazine: until then a trim (at shutdown in
	 * particular) need not look at them.
	 */
	private volatile boolean magazinesUsed;

	private final LongAdder hits = new LongAdder();

	private final LongAdder misses = new LongAdder();

	private final LongAdder evictions = new LongAdder();

	private final LongAdder deviceAllocations = new LongAdder();

	private final LongAdder deviceFrees = new LongAdder();

	private final LongAdder hostAllocations = new LongAdder();

	private final LongAdder hostFrees = new LongAdder();

	private final LongAdder synchronizingCalls = new LongAdder();

	private final LongAdder outOfMemoryRetries = new LongAdder();

	private final LongAdder outOfMemoryFailures = new LongAdder();

	/** Set once the device closes: blocks given back later are freed, not cached. */
	private volatile boolean closed;

	@SuppressWarnings("unchecked")
	BufferCache(int deviceId, BackendDevice backendDevice, long totalBytes, int leastPriority, long maxBytes,
			long ceilingBytes, LongSupplier usedBytes, MemoryFailures failures) {
		this.deviceId = deviceId;
		this.failures = failures;
		this.ceilingBytes = ceilingBytes;
		this.usedBytes = usedBytes;
		this.backendDevice = backendDevice;
		this.totalBytes = totalBytes;
		this.maxBytes = maxBytes;
		this.memoryThread = new MemoryThread(deviceId, backendDevice, leastPriority);
		this.hostArena = new HostStagingArena(this::allocateHostBlock, this::freeHostBlock, this.memoryThread);
		this.deviceBlocks = new ConcurrentLinkedDeque[SizeClasses.COUNT];
		for (int i = 0; i < this.deviceBlocks.length; i++) {
			this.deviceBlocks[i] = new ConcurrentLinkedDeque<>();
		}
		this.magazineCapacityBytes = this.magazines.stripes() * MemoryTuning.MAGAZINE_SLOTS
				* MemoryTuning.DEVICE_MAGAZINE_MAX_BLOCK_BYTES;
	}

	/**
	 * Returns a device block of at least {@code bytes}: a cached one, or a new one
	 * allocated in {@code stream}'s order.
	 * @param bytes the size asked for
	 * @param stream the session's stream, or {@code null} for memory not bound to a
	 * session (allocated on the memory thread's stream, which is then waited for)
	 * @throws dev.offload.DeviceOutOfMemoryException if the driver has no memory even
	 * after a trim
	 */
	NativeMemory acquireDevice(long bytes, @Nullable BackendStream stream) {
		long size = SizeClasses.sizeClass(bytes);
		boolean small = size <= MemoryTuning.DEVICE_MAGAZINE_MAX_BLOCK_BYTES;
		NativeMemory block = small ? this.magazines.take(size) : null;
		if (block == null) {
			block = this.deviceBlocks[SizeClasses.index(size)].pollFirst();
			if (block != null) {
				this.cachedBytes.addAndGet(-size);
			}
			else if (small && this.magazinesUsed) {
				block = this.magazines.takeFromAnyStripe(size);
			}
		}
		if (block != null) {
			this.hits.increment();
			return block;
		}
		this.misses.increment();
		try {
			return allocateDevice(size, stream);
		}
		catch (RuntimeException ex) {
			if (!this.failures.isOutOfMemory(ex)) {
				throw ex;
			}
			this.outOfMemoryRetries.increment();
			trimDevice();
			this.memoryThread.flush();
		}
		try {
			return allocateDevice(size, stream);
		}
		catch (RuntimeException ex) {
			if (!this.failures.isOutOfMemory(ex)) {
				throw ex;
			}
			this.outOfMemoryFailures.increment();
			throw this.failures.deviceOutOfMemory(this.deviceId, size, this.usedBytes.getAsLong(), cachedBytes(),
					this.backendDevice.freeMemoryBytes(), this.totalBytes, ex);
		}
	}

	/**
	 * Returns a page-locked host block of at least {@code bytes} from the staging arena.
	 * @throws dev.offload.HostStagingOutOfMemoryException if the host had no page-locked
	 * memory for a chunk it needed
	 */
	NativeMemory acquireHost(long bytes) {
		return this.hostArena.acquire(bytes);
	}

	/**
	 * Takes back a block whose work is done: into the cache, or, past the cache's bound,
	 * to the memory thread to be freed.
	 */
	void release(NativeMemory memory, long budgetBytesFollowing) {
		if (memory.isHost()) {
			this.hostArena.release(memory);
			return;
		}
		if (this.closed) {
			// An application's buffer closed after its device: nothing is cached any
			// more.
			freeDevice(memory);
			return;
		}
		NativeMemory block = memory;
		if (block.size() <= MemoryTuning.DEVICE_MAGAZINE_MAX_BLOCK_BYTES
				&& withinBound(this.cachedBytes.get() + this.magazineCapacityBytes, budgetBytesFollowing)) {
			NativeMemory displaced = parkInMagazine(block);
			if (displaced == null) {
				return;
			}
			block = displaced;
		}
		releaseShared(block, budgetBytesFollowing);
	}

	/** Into the shared list of the block's class, or past the bound to be freed. */
	private void releaseShared(NativeMemory memory, long budgetBytesFollowing) {
		long size = memory.size();
		long cached = this.cachedBytes.addAndGet(size);
		// The magazines' bytes count too: their capacity first, which spares reading
		// them while the cache is far from its bound.
		if (!withinBound(cached + this.magazineCapacityBytes, budgetBytesFollowing)
				&& !withinBound(cached + magazineBytes(), budgetBytesFollowing)) {
			this.cachedBytes.addAndGet(-size);
			this.evictions.increment();
			freeDevice(memory);
			return;
		}
		this.deviceBlocks[SizeClasses.index(size)].offerFirst(memory);
	}

	/**
	 * Tells whether the cache may hold {@code cached} bytes: up to its maximum, or beyond
	 * it as long as the budget leaves room. The owner of the blocks being given back
	 * gives their budget back after them (a session its whole reservation once its
	 * buffers are back), so those {@code budgetBytesFollowing} count as the cache's, not
	 * in use: else a working set within the budget would be evicted on every round and
	 * allocated again.
	 */
	private boolean withinBound(long cached, long budgetBytesFollowing) {
		return cached <= this.maxBytes
				|| cached <= this.ceilingBytes - Math.max(0, this.usedBytes.getAsLong() - budgetBytesFollowing);
	}

	/**
	 * Returns the device memory the cache holds: its shared lists and its magazines.
	 */
	long cachedBytes() {
		return this.cachedBytes.get() + magazineBytes();
	}

	/**
	 * Parks a block in the thread's stripe, displacing one in a full magazine (see
	 * {@link StripedMagazines#parkDisplacing}).
	 * @return {@code null}, or the block displaced
	 */
	private @Nullable NativeMemory parkInMagazine(NativeMemory memory) {
		if (!this.magazinesUsed) {
			this.magazinesUsed = true;
		}
		return this.magazines.parkDisplacing(memory);
	}

	private long magazineBytes() {
		return this.magazinesUsed ? this.magazines.bytes() : 0;
	}

	/**
	 * Frees every cached device block (in the memory thread's stream order).
	 */
	void trimDevice() {
		if (this.magazinesUsed) {
			this.magazines.drain((memory) -> {
				this.evictions.increment();
				freeDevice(memory);
			});
		}
		if (this.cachedBytes.get() == 0) {
			// Nothing in the shared lists (the usual case at shutdown): skip the walk
			// over every size class.
			return;
		}
		for (ConcurrentLinkedDeque<NativeMemory> blocks : this.deviceBlocks) {
			NativeMemory memory;
			while ((memory = blocks.pollFirst()) != null) {
				this.cachedBytes.addAndGet(-memory.size());
				this.evictions.increment();
				freeDevice(memory);
			}
		}
	}

	/**
	 * Returns the page-locked bytes lent to buffers and not yet given back.
	 */
	long hostUsedBytes() {
		return this.hostArena.usedBytes();
	}

	/**
	 * Frees everything: called when the device closes, with no buffer in use.
	 */
	void close() {
		closeKeepingHostMemory();
		this.hostFrees.add(this.hostArena.close());
	}

	/**
	 * Frees the cached device memory and stops the memory thread, but keeps the
	 * page-locked memory: called when the device closes while host buffers are still
	 * open, whose reads would crash on freed memory.
	 */
	void closeKeepingHostMemory() {
		this.closed = true;
		trimDevice();
		this.memoryThread.stop();
	}

	/**
	 * Fills the memory part of a statistics snapshot.
	 */
	MemoryCounts statistics(MemoryBudget budget, String budgetSource) {
		return new MemoryCounts(budget.budgetBytes(), budget.usedBytes(), cachedBytes(), budget.peakBytes(),
				budget.reservedPeakBytes(), this.hostArena.usedBytes(), this.hostArena.cachedBytes(),
				this.hostArena.peakBytes(), this.hits.sum(), this.misses.sum(), this.evictions.sum(),
				this.deviceAllocations.sum(), this.deviceFrees.sum(), this.hostAllocations.sum(), this.hostFrees.sum(),
				this.outOfMemoryRetries.sum(), this.outOfMemoryFailures.sum(), budget.waiting(), budget.waitTimeouts(),
				this.synchronizingCalls.sum(), budgetSource);
	}

	private NativeMemory allocateDevice(long size, @Nullable BackendStream stream) {
		NativeMemory memory;
		if (stream != null) {
			memory = this.backendDevice.allocateDevice(size, stream);
		}
		else {
			BackendStream own = this.memoryThread.stream();
			memory = this.backendDevice.allocateDevice(size, own);
			own.synchronize();
		}
		this.deviceAllocations.increment();
		return memory;
	}

	private void freeDevice(NativeMemory memory) {
		this.deviceFrees.increment();
		this.memoryThread.free(memory);
	}

	private void freeHostBlock(NativeMemory memory) {
		memory.free();
		this.hostFrees.increment();
	}

	private NativeMemory allocateHostBlock(long bytes) {
		if (!this.memoryThread.isCurrent()) {
			this.synchronizingCalls.increment();
		}
		NativeMemory memory;
		try {
			memory = this.backendDevice.allocateHost(bytes);
		}
		catch (RuntimeException ex) {
			if (!this.failures.isOutOfMemory(ex)) {
				throw ex;
			}
			if (!this.memoryThread.isCurrent()) {
				// Growing ahead on the memory thread is not a caller's failure: the
				// request that needs the chunk tries again and reports it.
				this.outOfMemoryFailures.increment();
			}
			throw this.failures.hostStagingOutOfMemory(this.deviceId, bytes, this.hostArena.usedBytes(),
					this.hostArena.cachedBytes(), this.hostArena.totalBytes(), ex);
		}
		this.hostAllocations.increment();
		return memory;
	}

}
