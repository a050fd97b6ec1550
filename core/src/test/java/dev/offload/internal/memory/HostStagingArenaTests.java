package dev.offload.internal.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.NativeMemory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The page-locked staging arena on the host backend: idle chunks go back to the driver on
 * the memory thread's sweeps, never one with a block in use.
 */
class HostStagingArenaTests {

	private static final long MIB = 1024 * 1024;

	private Backend backend;

	private MemoryThread memoryThread;

	private final List<NativeMemory> allocated = new CopyOnWriteArrayList<>();

	private final List<NativeMemory> freed = new CopyOnWriteArrayList<>();

	private HostStagingArena arena;

	@BeforeEach
	void open() {
		this.backend = HostBackend.builder().workersPerDevice(1).build();
		BackendDevice device = this.backend.devices().get(0);
		this.memoryThread = new MemoryThread(0, device, device.info().leastPriority());
		// The sweeps are the test's, not a timer's.
		this.arena = new HostStagingArena((bytes) -> {
			NativeMemory memory = device.allocateHost(bytes);
			this.allocated.add(memory);
			return memory;
		}, (memory) -> {
			this.freed.add(memory);
			memory.free();
		}, this.memoryThread, Long.MAX_VALUE / 4);
	}

	@AfterEach
	void close() {
		this.arena.close();
		this.memoryThread.stop();
		this.backend.close();
	}

	/** Two chunks: the first (4 MiB) and the one grown ahead (8 MiB), now current. */
	private NativeMemory[] blocksInTwoChunks() {
		NativeMemory first = this.arena.acquire(3 * MIB);
		// Past half of the first chunk: the memory thread grows the next one; once it
		// allocated, its job holds the lock that flush waits for, until the chunk is set.
		await().until(() -> this.allocated.size() == 2);
		this.memoryThread.flush();
		NativeMemory second = this.arena.acquire(3 * MIB);
		assertThat(this.allocated).hasSize(2);
		return new NativeMemory[] { first, second };
	}

	private int sweep(int times) {
		int freedNow = 0;
		for (int i = 0; i < times; i++) {
			freedNow += this.arena.releaseIdle();
		}
		return freedNow;
	}

	@Test
	void releaseIdleWhenAChunkWentUnusedShouldFreeItButKeepTheCurrentOne() {
		NativeMemory[] blocks = blocksInTwoChunks();
		this.arena.release(blocks[0]);
		this.arena.release(blocks[1]);
		assertThat(sweep(MemoryTuning.STAGING_IDLE_SWEEPS - 1)).isZero();
		assertThat(sweep(1)).isEqualTo(1);
		assertThat(this.freed).containsExactly(this.allocated.get(0));
		assertThat(this.arena.totalBytes()).isEqualTo(8 * MIB);
		assertThat(this.arena.cachedBytes()).isEqualTo(8 * MIB);
		assertThat(sweep(2 * MemoryTuning.STAGING_IDLE_SWEEPS)).isZero();
		// The freed chunk's block left the free list; the current chunk's serves again.
		assertThat(this.arena.acquire(3 * MIB)).isSameAs(blocks[1]);
		assertThat(this.allocated).hasSize(2);
	}

	@Test
	void releaseIdleWhenABlockIsInUseShouldKeepItsChunkUntilIdleAfterItsReturn() {
		NativeMemory[] blocks = blocksInTwoChunks();
		this.arena.release(blocks[1]);
		assertThat(sweep(3 * MemoryTuning.STAGING_IDLE_SWEEPS)).isZero();
		assertThat(this.freed).isEmpty();
		this.arena.release(blocks[0]);
		assertThat(sweep(MemoryTuning.STAGING_IDLE_SWEEPS - 1)).isZero();
		assertThat(sweep(1)).isEqualTo(1);
		assertThat(this.arena.usedBytes()).isZero();
	}

	@Test
	void releaseIdleWhenAnIdleChunksBlockWaitsInAMagazineShouldStillFreeTheChunk() {
		// A small block goes back to the releasing thread's magazine, where it still
		// counts as taken from its chunk.
		NativeMemory small = this.arena.acquire(64 * 1024);
		NativeMemory[] blocks = blocksInTwoChunks();
		this.arena.release(small);
		this.arena.release(blocks[0]);
		this.arena.release(blocks[1]);
		assertThat(this.arena.acquire(64 * 1024)).isSameAs(small);
		this.arena.release(small);
		assertThat(sweep(MemoryTuning.STAGING_IDLE_SWEEPS - 1)).isZero();
		assertThat(sweep(1)).isEqualTo(1);
		assertThat(this.freed).containsExactly(this.allocated.get(0));
		// The block went with its chunk: the next of its size is carved from the current
		// chunk.
		assertThat(this.arena.acquire(64 * 1024)).isNotSameAs(small);
		assertThat(this.arena.usedBytes()).isEqualTo(64 * 1024);
	}

	@Test
	void releaseIdleWhenADedicatedBlockIsIdleShouldFreeIt() {
		NativeMemory large = this.arena.acquire(MemoryTuning.STAGING_MAX_CHUNK_BYTES / 2 + 1);
		assertThat(sweep(2 * MemoryTuning.STAGING_IDLE_SWEEPS)).isZero();
		this.arena.release(large);
		assertThat(sweep(MemoryTuning.STAGING_IDLE_SWEEPS)).isEqualTo(1);
		assertThat(this.freed).containsExactly(large);
		assertThat(this.arena.totalBytes()).isZero();
	}

	@Test
	@Tag("stress")
	void releaseIdleWhileRequestsTakeAndGiveBackBlocksShouldNeverFreeABlockInUse() throws Exception {
		AtomicInteger freedChunks = new AtomicInteger();
		HostStagingArena fakes = fakeArena(freedChunks);
		AtomicInteger blocksOfFreedChunks = new AtomicInteger();
		whileSweeping(fakes, (random) -> {
			for (int i = 0; i < 10_000; i++) {
				FakeMemory block = (FakeMemory) fakes.acquire(512 + random.nextLong(3 * MIB));
				Thread.yield();
				if (block.chunkFreed()) {
					blocksOfFreedChunks.incrementAndGet();
				}
				fakes.release(block);
			}
		});
		assertThat(blocksOfFreedChunks).hasValue(0);
		// The race was there to lose: chunks were given back while requests went on.
		assertThat(freedChunks.get()).isPositive();
		assertThat(fakes.usedBytes()).isZero();
		fakes.close();
	}

	@Test
	@Tag("stress")
	void smallBlocksTakenAndGivenBackOnManyThreadsWhileSweepingShouldNeverBeLentTwiceAtOnce() throws Exception {
		HostStagingArena fakes = fakeArena(new AtomicInteger());
		Set<NativeMemory> lent = ConcurrentHashMap.newKeySet();
		AtomicInteger lentTwice = new AtomicInteger();
		AtomicInteger blocksOfFreedChunks = new AtomicInteger();
		// Every size goes through the magazines; a thread holds up to three blocks, given
		// back in another order than taken.
		whileSweeping(fakes, (random) -> {
			List<FakeMemory> held = new ArrayList<>();
			for (int i = 0; i < 20_000; i++) {
				FakeMemory block = (FakeMemory) fakes
					.acquire(512 + random.nextLong(MemoryTuning.HOST_MAGAZINE_MAX_BLOCK_BYTES - 512));
				if (!lent.add(block)) {
					lentTwice.incrementAndGet();
				}
				if (block.chunkFreed()) {
					blocksOfFreedChunks.incrementAndGet();
				}
				held.add(block);
				if (held.size() == 3 || random.nextInt(4) == 0) {
					FakeMemory back = held.remove(random.nextInt(held.size()));
					lent.remove(back);
					fakes.release(back);
				}
			}
			for (FakeMemory back : held) {
				lent.remove(back);
				fakes.release(back);
			}
		});
		assertThat(lentTwice).hasValue(0);
		assertThat(blocksOfFreedChunks).hasValue(0);
		assertThat(fakes.usedBytes()).isZero();
		fakes.close();
	}

	/**
	 * An arena of fake chunks whose sweeps are the test's; counts the chunks it frees.
	 */
	private HostStagingArena fakeArena(AtomicInteger freedChunks) {
		return new HostStagingArena((bytes) -> new FakeMemory(bytes, null), (memory) -> {
			((FakeMemory) memory).free();
			freedChunks.incrementAndGet();
		}, this.memoryThread, Long.MAX_VALUE / 4);
	}

	/**
	 * Runs four request threads, each with a random source seeded by its index, while
	 * another thread sweeps the arena without pause.
	 */
	private static void whileSweeping(HostStagingArena arena, Consumer<SplittableRandom> request)
			throws InterruptedException {
		AtomicBoolean done = new AtomicBoolean();
		Thread sweeper = new Thread(() -> {
			while (!done.get()) {
				arena.releaseIdle();
			}
		});
		sweeper.start();
		Thread[] requests = new Thread[4];
		for (int t = 0; t < requests.length; t++) {
			int seed = t;
			requests[t] = new Thread(() -> request.accept(new SplittableRandom(seed)));
			requests[t].start();
		}
		for (Thread thread : requests) {
			thread.join();
		}
		done.set(true);
		sweeper.join();
	}

	@Test
	void memoryThreadShouldRunItsPeriodicJobBetweenOthersUntilStopped() {
		AtomicInteger ticks = new AtomicInteger();
		this.memoryThread.every(1_000_000, ticks::incrementAndGet);
		await().until(() -> ticks.get() >= 3);
		this.memoryThread.stop();
		int stopped = ticks.get();
		this.memoryThread.submit(() -> {
		});
		assertThat(ticks.get()).isEqualTo(stopped);
	}

	/**
	 * Memory that only knows whether it (or the chunk it was sliced from) was freed.
	 */
	private static final class FakeMemory implements NativeMemory {

		private final long size;

		private final FakeMemory chunk;

		private volatile boolean freed;

		FakeMemory(long size, FakeMemory chunk) {
			this.size = size;
			this.chunk = (chunk != null) ? chunk : this;
		}

		boolean chunkFreed() {
			return this.chunk.freed;
		}

		@Override
		public long size() {
			return this.size;
		}

		@Override
		public boolean isHost() {
			return true;
		}

		@Override
		public java.nio.ByteBuffer hostView() {
			return null;
		}

		@Override
		public Object handle() {
			return this;
		}

		@Override
		public void free() {
			this.freed = true;
		}

		@Override
		public NativeMemory slice(long offset, long bytes) {
			return new FakeMemory(bytes, this.chunk);
		}

	}

}
