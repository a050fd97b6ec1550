package dev.offload;

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
 * and the allocation retried once; then a {@link DeviceOutOfMemoryException}.
 */
final class BufferCache {

	private final int deviceId;

	private final BackendDevice backendDevice;

	private final long totalBytes;

	private final long maxBytes;

	/**
	 * The device memory the cache may hold beyond {@link #maxBytes}: what the budget
	 * leaves free.
	 */
	private final LongSupplier headroom;

	private final MemoryThread memoryThread;

	private final HostStagingArena hostArena;

	private final ConcurrentLinkedDeque<NativeMemory>[] deviceBlocks;

	private final AtomicLong cachedBytes = new AtomicLong();

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

	@SuppressWarnings("unchecked")
	BufferCache(int deviceId, BackendDevice backendDevice, long totalBytes, int leastPriority, long maxBytes,
			LongSupplier headroom) {
		this.deviceId = deviceId;
		this.headroom = headroom;
		this.backendDevice = backendDevice;
		this.totalBytes = totalBytes;
		this.maxBytes = maxBytes;
		this.memoryThread = new MemoryThread(deviceId, backendDevice, leastPriority);
		this.hostArena = new HostStagingArena(this::allocateHostBlock, this.memoryThread);
		this.deviceBlocks = new ConcurrentLinkedDeque[SizeClasses.COUNT];
		for (int i = 0; i < this.deviceBlocks.length; i++) {
			this.deviceBlocks[i] = new ConcurrentLinkedDeque<>();
		}
	}

	/**
	 * Returns a device block of at least {@code bytes}: a cached one, or a new one
	 * allocated in {@code stream}'s order.
	 * @param bytes the size asked for
	 * @param stream the session's stream, or {@code null} for memory not bound to a
	 * session (allocated on the memory thread's stream, which is then waited for)
	 * @param usedBytes the device memory in use, for an out-of-memory message
	 * @throws DeviceOutOfMemoryException if the driver has no memory even after a trim
	 */
	NativeMemory acquireDevice(long bytes, @Nullable BackendStream stream, long usedBytes) {
		long size = SizeClasses.sizeClass(bytes);
		NativeMemory block = this.deviceBlocks[SizeClasses.index(size)].pollFirst();
		if (block != null) {
			this.cachedBytes.addAndGet(-size);
			this.hits.increment();
			return block;
		}
		this.misses.increment();
		try {
			return allocateDevice(size, stream);
		}
		catch (BackendException ex) {
			if (!ex.isOutOfMemory()) {
				throw ex;
			}
			this.outOfMemoryRetries.increment();
			trimDevice();
			this.memoryThread.flush();
		}
		try {
			return allocateDevice(size, stream);
		}
		catch (BackendException ex) {
			if (!ex.isOutOfMemory()) {
				throw ex;
			}
			this.outOfMemoryFailures.increment();
			throw new DeviceOutOfMemoryException(this.deviceId, size, usedBytes, this.cachedBytes.get(),
					this.backendDevice.freeMemoryBytes(), this.totalBytes, ex);
		}
	}

	/**
	 * Returns a page-locked host block of at least {@code bytes} from the staging arena.
	 */
	NativeMemory acquireHost(long bytes) {
		return this.hostArena.acquire(bytes);
	}

	/**
	 * Takes back a block whose work is done: into the cache, or, past the cache's bound,
	 * to the memory thread to be freed.
	 */
	void release(NativeMemory memory) {
		if (memory.isHost()) {
			this.hostArena.release(memory);
			return;
		}
		long size = memory.size();
		long cached = this.cachedBytes.addAndGet(size);
		if (cached > this.maxBytes && cached > this.headroom.getAsLong()) {
			this.cachedBytes.addAndGet(-size);
			this.evictions.increment();
			freeDevice(memory);
			return;
		}
		this.deviceBlocks[SizeClasses.index(size)].offerFirst(memory);
	}

	long cachedBytes() {
		return this.cachedBytes.get();
	}

	/**
	 * Frees every cached device block (in the memory thread's stream order).
	 */
	void trimDevice() {
		if (this.cachedBytes.get() == 0) {
			// Nothing cached (the usual case at shutdown): skip the walk over every size
			// class.
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
	 * Frees everything: called when the device closes, with no buffer in use.
	 */
	void close() {
		trimDevice();
		this.memoryThread.stop();
		this.hostFrees.add(this.hostArena.close());
	}

	/**
	 * Fills the memory part of a statistics snapshot.
	 */
	MemoryStatistics statistics(MemoryBudget budget) {
		return new MemoryStatistics(budget.budgetBytes(), budget.usedBytes(), this.cachedBytes.get(),
				budget.peakBytes(), this.hostArena.usedBytes(), this.hostArena.cachedBytes(),
				this.hostArena.peakBytes(), this.hits.sum(), this.misses.sum(), this.evictions.sum(),
				this.deviceAllocations.sum(), this.deviceFrees.sum(), this.hostAllocations.sum(), this.hostFrees.sum(),
				this.outOfMemoryRetries.sum(), this.outOfMemoryFailures.sum(), budget.waiting(), budget.waitTimeouts(),
				this.synchronizingCalls.sum());
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

	private NativeMemory allocateHostBlock(long bytes) {
		if (!this.memoryThread.isCurrent()) {
			this.synchronizingCalls.increment();
		}
		NativeMemory memory = this.backendDevice.allocateHost(bytes);
		this.hostAllocations.increment();
		return memory;
	}

}
