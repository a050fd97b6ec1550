package dev.offload;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.NativeMemory;

/**
 * Freed memory of one device kept for reuse, so that no {@code cuMemFree} (which can
 * synchronize the whole device) runs on a hot path. Sizes are rounded up to a class (a
 * power of two up to 1 MiB, then whole MiB) and cached per class; the cache holds at most
 * {@code maxBytes} and frees what does not fit.
 */
final class BufferCache {

	private static final long MIB = 1024 * 1024;

	private final BackendDevice backendDevice;

	private final long maxBytes;

	private final Map<Long, ConcurrentLinkedDeque<NativeMemory>> deviceMemory = new ConcurrentHashMap<>();

	private final Map<Long, ConcurrentLinkedDeque<NativeMemory>> hostMemory = new ConcurrentHashMap<>();

	private final AtomicLong cachedBytes = new AtomicLong();

	private final LongAdder hits = new LongAdder();

	private final LongAdder misses = new LongAdder();

	private final LongAdder evictions = new LongAdder();

	private final LongAdder deviceAllocations = new LongAdder();

	private final LongAdder hostAllocations = new LongAdder();

	private final LongAdder deviceFrees = new LongAdder();

	private final LongAdder hostFrees = new LongAdder();

	BufferCache(BackendDevice backendDevice, long maxBytes) {
		this.backendDevice = backendDevice;
		this.maxBytes = maxBytes;
	}

	static long sizeClass(long bytes) {
		if (bytes <= 256) {
			return 256;
		}
		if (bytes <= MIB) {
			return Long.highestOneBit(bytes - 1) << 1;
		}
		return ((bytes + MIB - 1) / MIB) * MIB;
	}

	NativeMemory acquire(long bytes, boolean host) {
		long size = sizeClass(bytes);
		ConcurrentLinkedDeque<NativeMemory> cached = cache(host).get(size);
		NativeMemory memory = (cached != null) ? cached.pollFirst() : null;
		if (memory != null) {
			this.cachedBytes.addAndGet(-size);
			this.hits.increment();
			return memory;
		}
		this.misses.increment();
		(host ? this.hostAllocations : this.deviceAllocations).increment();
		return host ? this.backendDevice.allocateHost(size) : this.backendDevice.allocateDevice(size);
	}

	void release(NativeMemory memory) {
		long size = memory.size();
		if (this.cachedBytes.addAndGet(size) > this.maxBytes) {
			this.cachedBytes.addAndGet(-size);
			this.evictions.increment();
			free(memory);
			return;
		}
		cache(memory.isHost()).computeIfAbsent(size, (key) -> new ConcurrentLinkedDeque<>()).offerFirst(memory);
	}

	long cachedBytes() {
		return this.cachedBytes.get();
	}

	/**
	 * Frees every cached block.
	 */
	void trim() {
		trim(this.deviceMemory);
		trim(this.hostMemory);
	}

	private void trim(Map<Long, ConcurrentLinkedDeque<NativeMemory>> cache) {
		for (ConcurrentLinkedDeque<NativeMemory> blocks : cache.values()) {
			NativeMemory memory;
			while ((memory = blocks.pollFirst()) != null) {
				this.cachedBytes.addAndGet(-memory.size());
				this.evictions.increment();
				free(memory);
			}
		}
	}

	private void free(NativeMemory memory) {
		(memory.isHost() ? this.hostFrees : this.deviceFrees).increment();
		memory.free();
	}

	MemoryStatistics statistics() {
		return new MemoryStatistics(Long.MAX_VALUE, 0, this.cachedBytes.get(), 0, 0, 0, 0, this.hits.sum(),
				this.misses.sum(), this.evictions.sum(), this.deviceAllocations.sum(), this.deviceFrees.sum(),
				this.hostAllocations.sum(), this.hostFrees.sum(), 0, 0, 0, 0);
	}

	private Map<Long, ConcurrentLinkedDeque<NativeMemory>> cache(boolean host) {
		return host ? this.hostMemory : this.deviceMemory;
	}

}
