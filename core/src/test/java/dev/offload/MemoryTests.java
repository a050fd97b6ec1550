package dev.offload;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.internal.ThreadStripes;
import dev.offload.internal.memory.MemoryTuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The memory model on the host backend: size classes, the cache, the budget and its
 * waits, out of memory, and that every path gives everything back.
 */
class MemoryTests {

	private static final long KIB = 1024;

	private static final long MIB = 1024 * KIB;

	private DeviceRegistry registry;

	private Device open(long emulatedBytes, MemoryConfig memory, long cacheBytes) {
		HostBackend backend = HostBackend.builder().workersPerDevice(2).memoryBytes(emulatedBytes).build();
		this.registry = DeviceRegistry.builder(backend)
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.memory(memory)
			.bufferCacheMaxBytes(cacheBytes)
			.build();
		return this.registry.device(0);
	}

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close(Duration.ofSeconds(5));
		}
	}

	@Test
	void allocateOnAClosedDeviceShouldFailAtOnceEvenWithTheBudgetFull() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 0);
		DeviceBuffer full = device.allocate(MIB);
		this.registry.close(Duration.ofSeconds(5));
		// Not after the borrow timeout's wait for a budget nobody gives back.
		assertThatExceptionOfType(StreamPoolClosedException.class).isThrownBy(() -> device.allocate(MIB));
		full.close();
	}

	@Test
	void anApplicationBufferClosedAfterItsDeviceShouldBeFreedNotCached() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(8 * MIB), 0);
		DeviceBuffer small = device.allocate(4096);
		DeviceBuffer large = device.allocate(5 * MIB);
		this.registry.close(Duration.ofSeconds(5));
		small.close();
		large.close();
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.usedBytes()).isZero();
		assertThat(statistics.cachedBytes()).isZero();
		assertThat(statistics.deviceFrees()).isEqualTo(2);
	}

	@Test
	void aWorkingSetWithinTheBudgetShouldBeServedFromTheCacheAfterWarmUp() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(8 * MIB), MIB);
		for (int round = 0; round < 3; round++) {
			try (OffloadSession session = device.openSession()) {
				for (int i = 0; i < 6; i++) {
					session.allocate(MIB);
				}
			}
			device.allocate(5 * MIB / 4).close();
		}
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.usedBytes()).isZero();
		// Warm-up: the session's six blocks and the application's one; then hits only.
		assertThat(statistics.cacheMisses())
			.as("misses (evictions %d, cached %d)", statistics.cacheEvictions(), statistics.cachedBytes())
			.isEqualTo(7);
		assertThat(statistics.cacheEvictions()).isZero();
	}

	@Test
	void allocateWhenTheSameClassComesBackShouldHitTheCacheAndAllocateOnce() {
		Device device = open(64 * MIB, MemoryConfig.DEFAULTS, 16 * MIB);
		for (int i = 0; i < 5; i++) {
			try (OffloadSession session = device.openSession()) {
				session.fill(session.allocate(1000 + i), (byte) 1);
			}
		}
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.deviceAllocations()).isEqualTo(1);
		assertThat(statistics.cacheMisses()).isEqualTo(1);
		assertThat(statistics.cacheHits()).isEqualTo(4);
		assertThat(statistics.usedBytes()).isZero();
		assertThat(statistics.peakBytes()).isEqualTo(1024);
		assertThat(statistics.cachedBytes()).isEqualTo(1024);
	}

	@Test
	void releaseWhenTheCacheIsFullShouldEvictOnTheMemoryThread() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(4 * MIB), 0);
		try (OffloadSession session = device.openSession()) {
			session.fill(session.allocate(MIB), (byte) 1);
		}
		// Cached beyond the bound of 0, as the budget leaves room; then an application's
		// buffer of another size class takes 3 MiB of the budget beside it.
		assertThat(device.memoryStatistics().cachedBytes()).isEqualTo(MIB);
		try (DeviceBuffer held = device.allocate(3 * MIB)) {
			try (OffloadSession session = device.openSession()) {
				session.fill(session.allocate(MIB / 4), (byte) 1);
			}
			// 1 MiB cached and 3 MiB held leave no room for the session's block.
			MemoryStatistics statistics = device.memoryStatistics();
			assertThat(statistics.cacheEvictions()).isEqualTo(1);
			assertThat(statistics.deviceFrees()).isEqualTo(1);
			assertThat(statistics.cachedBytes()).isEqualTo(MIB);
			assertThat(statistics.synchronizingCalls()).isZero();
		}
	}

	@Test
	void releaseWhenTheBudgetLeavesRoomShouldCacheBeyondTheBound() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(8 * MIB), MIB);
		try (OffloadSession session = device.openSession()) {
			for (int i = 0; i < 4; i++) {
				session.allocate(MIB);
			}
		}
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.cachedBytes()).isEqualTo(4 * MIB);
		assertThat(statistics.cacheEvictions()).isZero();
	}

	@Test
	void requestLargerThanTheBudgetShouldFailAtOnceNamingBudgetAndRequest() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		try (OffloadSession session = device.openSession()) {
			assertThatExceptionOfType(MemoryBudgetExceededException.class).isThrownBy(() -> session.allocate(2 * MIB))
				.withMessageContaining("requested 2097152 bytes is more than the whole budget of 1048576 bytes")
				.satisfies((ex) -> {
					assertThat(ex.getBudgetBytes()).isEqualTo(MIB);
					assertThat(ex.getRequestedBytes()).isEqualTo(2 * MIB);
					assertThat(ex.getWaited()).isZero();
				});
			assertThat(session.failure()).isNull();
		}
		assertThat(device.memoryStatistics().usedBytes()).isZero();
		assertThat(device.memoryStatistics().deviceAllocations()).isZero();
	}

	@Test
	void sessionWhenTheBudgetIsTakenShouldWaitAndFailAtItsDeadlineNamingInUse() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		try (OffloadSession holder = device.openSession()) {
			holder.allocate(768 * KIB);
			try (OffloadSession late = device.openSession(StreamPriority.NORMAL, Duration.ofMillis(50))) {
				assertThatExceptionOfType(MemoryBudgetExceededException.class)
					.isThrownBy(() -> late.allocate(512 * KIB))
					.withMessageContaining("requested 524288 bytes, in use 786432 of a budget of 1048576 bytes")
					.satisfies((ex) -> assertThat(ex.getUsedBytes()).isEqualTo(768 * KIB));
			}
		}
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.waitTimeouts()).isEqualTo(1);
		assertThat(statistics.waiting()).isZero();
		assertThat(statistics.usedBytes()).isZero();
	}

	@Test
	void sessionWhenAnotherEndsShouldBeAdmittedWithItsBytes() throws Exception {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		OffloadSession holder = device.openSession();
		holder.allocate(768 * KIB);
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			try (OffloadSession late = device.openSession()) {
				late.fill(late.allocate(512 * KIB), (byte) 2);
				return late.reservedMemory();
			}
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> device.memoryStatistics().waiting() == 1);
		assertThat(waiter).isNotDone();
		holder.close();
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo(512 * KIB);
		assertThat(device.memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void waitersWhenBytesComeBackShouldBeAdmittedHighPriorityFirst() throws Exception {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		OffloadSession holder = device.openSession();
		holder.reserveMemory(MIB);
		OffloadSession normal = device.openSession(StreamPriority.NORMAL);
		OffloadSession high = device.openSession(StreamPriority.HIGH);
		CompletableFuture<Void> normalAdmitted = CompletableFuture.runAsync(() -> normal.reserveMemory(MIB));
		await().atMost(Duration.ofSeconds(30)).until(() -> device.memoryStatistics().waiting() == 1);
		CompletableFuture<Void> highAdmitted = CompletableFuture.runAsync(() -> high.reserveMemory(MIB));
		await().atMost(Duration.ofSeconds(30)).until(() -> device.memoryStatistics().waiting() == 2);
		holder.close();
		highAdmitted.get(30, TimeUnit.SECONDS);
		assertThat(normalAdmitted).isNotDone();
		high.close();
		normalAdmitted.get(30, TimeUnit.SECONDS);
		normal.close();
		assertThat(device.memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void largeRequestsShouldLeaveAnEighthOfTheBudgetToSmallOnes() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(8 * MIB), MIB);
		try (OffloadSession large = device.openSession()) {
			large.reserveMemory(4 * MIB);
			try (OffloadSession second = device.openSession(StreamPriority.NORMAL, Duration.ofMillis(20))) {
				assertThatExceptionOfType(MemoryBudgetExceededException.class)
					.isThrownBy(() -> second.reserveMemory(3 * MIB + 512 * KIB));
			}
			try (OffloadSession small = device.openSession(StreamPriority.NORMAL, Duration.ofMillis(20))) {
				small.reserveMemory(MIB);
				assertThat(device.memoryStatistics().usedBytes()).isEqualTo(5 * MIB);
			}
		}
		try (OffloadSession alone = device.openSession()) {
			alone.reserveMemory(8 * MIB);
		}
		assertThat(device.memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void sessionOptionsWithMemoryShouldReserveItWhenTheSessionOpens() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		try (OffloadSession session = this.registry.openSession(SessionOptions.DEFAULTS.withMemoryBytes(640 * KIB))) {
			assertThat(device.memoryStatistics().usedBytes()).isEqualTo(640 * KIB);
			session.allocate(300 * KIB);
			session.allocate(320 * KIB);
			assertThat(session.reservedMemory()).isEqualTo(2 * Device.allocationSize(300 * KIB));
			assertThat(device.memoryStatistics().waiting()).isZero();
		}
		assertThatExceptionOfType(MemoryBudgetExceededException.class)
			.isThrownBy(() -> this.registry.openSession(SessionOptions.DEFAULTS.withMemoryBytes(2 * MIB)));
		assertThat(device.activeSessions()).isZero();
		assertThat(device.memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void keptSessionShouldLeaveWhatEachRequestClosedToTheNextWithinTheBudget() {
		// Two requests' blocks do not fit the budget together: each request must draw the
		// memory the one before closed, not wait for budget nobody gives back.
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		try (OffloadSession session = device.openSession(StreamPriority.NORMAL, Duration.ofSeconds(30))) {
			byte[] read = new byte[1];
			for (int request = 1; request <= 20; request++) {
				try (DeviceBuffer block = session.allocate(640 * KIB); HostBuffer host = session.allocateHost(KIB)) {
					session.fill(block, (byte) request);
					session.copy(block, 0, host, 0, 1);
					session.synchronize();
					assertThat(host.getBytes(0, read)[0]).isEqualTo((byte) request);
				}
			}
			assertThat(session.reservedMemory()).isEqualTo(Device.allocationSize(640 * KIB));
			assertThat(device.memoryStatistics().deviceAllocations()).isOne();
			assertThat(device.memoryStatistics().waitTimeouts()).isZero();
		}
		assertThat(device.memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void keptSessionWaitingThroughWhenDoneShouldLeaveWhatEachRequestClosedToTheNext() throws Exception {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		try (OffloadSession session = device.openSession(StreamPriority.NORMAL, Duration.ofSeconds(30))) {
			for (int request = 1; request <= 20; request++) {
				try (DeviceBuffer block = session.allocate(640 * KIB)) {
					session.fill(block, (byte) request);
					session.whenDone().get(30, TimeUnit.SECONDS);
				}
			}
			assertThat(session.reservedMemory()).isEqualTo(Device.allocationSize(640 * KIB));
			assertThat(device.memoryStatistics().deviceAllocations()).isOne();
		}
	}

	@Test
	void sessionBufferClosedAfterWhenDoneWithWorkEnqueuedSinceShouldWaitForTheSynchronize() throws Exception {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(8 * MIB), 16 * MIB);
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer block = session.allocate(MIB);
			session.whenDone().get(30, TimeUnit.SECONDS);
			// Enqueued after the point whenDone watched: it may still run.
			session.fill(block, (byte) 1);
			block.close();
			session.allocate(MIB);
			assertThat(device.memoryStatistics().cachedBytes()).isZero();
			session.synchronize();
			assertThat(device.memoryStatistics().cachedBytes()).isEqualTo(MIB);
		}
	}

	@Test
	void sessionBufferClosedWithWorkPendingShouldGoBackOnlyAtTheNextSynchronize() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(8 * MIB), 16 * MIB);
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer block = session.allocate(MIB);
			session.fill(block, (byte) 1);
			block.close();
			// Its fill may still run: a new buffer must not get its memory.
			DeviceBuffer next = session.allocate(MIB);
			assertThat(next.nativeHandle()).isNotSameAs(block.memory().handle());
			assertThat(device.memoryStatistics().cachedBytes()).isZero();
			assertThat(session.reservedMemory()).isEqualTo(2 * MIB);
			session.synchronize();
			assertThat(device.memoryStatistics().cachedBytes()).isEqualTo(MIB);
			assertThat(next.isClosed()).isFalse();
			session.fill(next, (byte) 2);
		}
	}

	@Test
	void applicationBufferShouldCountAgainstTheBudgetUntilClosed() {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(MIB), 16 * MIB);
		DeviceBuffer buffer = device.allocate(700 * KIB);
		assertThat(device.memoryStatistics().usedBytes()).isEqualTo(Device.allocationSize(700 * KIB));
		buffer.close();
		assertThat(device.memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void allocateWhenTheCacheHoldsTheMemoryShouldTrimAndRetryOnce() {
		Device device = open(4 * MIB, MemoryConfig.UNLIMITED, 64 * MIB);
		try (OffloadSession session = device.openSession()) {
			session.allocate(3 * MIB);
		}
		assertThat(device.cachedBufferBytes()).isEqualTo(3 * MIB);
		try (OffloadSession session = device.openSession()) {
			session.fill(session.allocate(2 * MIB), (byte) 3);
			session.synchronize();
		}
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.outOfMemoryRetries()).isEqualTo(1);
		assertThat(statistics.outOfMemoryFailures()).isZero();
		assertThat(statistics.deviceFrees()).isEqualTo(1);
	}

	@Test
	void allocateWhenSmallBlocksWaitInAThreadsMagazineShouldCountTrimAndRetryWithThem() {
		long block = MemoryTuning.DEVICE_MAGAZINE_MAX_BLOCK_BYTES;
		Device device = open(4 * block, MemoryConfig.UNLIMITED, 1024 * MIB);
		DeviceBuffer[] buffers = new DeviceBuffer[3];
		for (int i = 0; i < buffers.length; i++) {
			buffers[i] = device.allocate(block);
		}
		for (DeviceBuffer buffer : buffers) {
			buffer.close();
		}
		assertThat(device.cachedBufferBytes()).isEqualTo(3 * block);
		assertThat(device.memoryStatistics().cachedBytes()).isEqualTo(3 * block);
		// A larger class does not fit beside them: the retry must free the parked blocks.
		try (DeviceBuffer large = device.allocate(2 * block)) {
			assertThat(large.size()).isEqualTo(2 * block);
		}
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.outOfMemoryRetries()).isEqualTo(1);
		assertThat(statistics.outOfMemoryFailures()).isZero();
		assertThat(statistics.deviceFrees()).isEqualTo(3);
		assertThat(statistics.cacheEvictions()).isEqualTo(3);
		assertThat(statistics.cachedBytes()).isEqualTo(2 * block);
		assertThat(statistics.usedBytes()).isZero();
	}

	@Test
	void releaseWhenTheThreadsMagazineIsFullShouldKeepTheDisplacedBlockCached() {
		Device device = open(64 * MIB, MemoryConfig.DEFAULTS, 1024 * MIB);
		DeviceBuffer[] small = new DeviceBuffer[4];
		for (int i = 0; i < small.length; i++) {
			small[i] = device.allocate(512);
		}
		DeviceBuffer larger = device.allocate(4 * KIB);
		for (DeviceBuffer buffer : small) {
			buffer.close();
		}
		// The magazine is full: the larger block takes a slot and a small one moves on.
		larger.close();
		assertThat(device.cachedBufferBytes()).isEqualTo(4 * 512 + 4 * KIB);
		device.allocate(512).close();
		device.allocate(4 * KIB).close();
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.deviceAllocations()).isEqualTo(5);
		assertThat(statistics.cacheHits()).isEqualTo(2);
		assertThat(statistics.cachedBytes()).isEqualTo(4 * 512 + 4 * KIB);
		device.trimBufferCache();
		assertThat(device.cachedBufferBytes()).isZero();
		assertThat(device.memoryStatistics().deviceFrees()).isEqualTo(5);
	}

	@Test
	void allocateWhenAnEndedThreadParkedTheBlockShouldReuseItAndTrimShouldFreeIt() throws Exception {
		Device device = open(64 * MIB, MemoryConfig.DEFAULTS, 1024 * MIB);
		int stripes = ThreadStripes.stripes(Runtime.getRuntime().availableProcessors());
		int ours = ThreadStripes.current(stripes);
		Thread other;
		do {
			other = new Thread(() -> device.allocate(4 * KIB).close());
		}
		while (ThreadStripes.stripe(other.getId(), stripes) == ours);
		other.start();
		other.join();
		assertThat(device.cachedBufferBytes()).isEqualTo(4 * KIB);
		device.allocate(4 * KIB).close();
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.deviceAllocations()).isEqualTo(1);
		assertThat(statistics.cacheHits()).isEqualTo(1);
		assertThat(statistics.cachedBytes()).isEqualTo(4 * KIB);
		device.trimBufferCache();
		assertThat(device.cachedBufferBytes()).isZero();
		assertThat(device.memoryStatistics().deviceFrees()).isEqualTo(1);
	}

	@Test
	void closeWhenTwoThreadsCloseOneBufferAtOnceShouldGiveItBackOnce() throws Exception {
		Device device = open(64 * MIB, MemoryConfig.DEFAULTS, 1024 * MIB);
		int rounds = 10_000;
		DeviceBuffer[] buffers = new DeviceBuffer[rounds];
		for (int i = 0; i < rounds; i++) {
			buffers[i] = device.allocate(4 * KIB);
		}
		java.util.concurrent.atomic.AtomicInteger ready = new java.util.concurrent.atomic.AtomicInteger();
		// Both threads close each buffer as soon as both reached it.
		Runnable closer = () -> {
			for (int i = 0; i < rounds; i++) {
				ready.incrementAndGet();
				while (ready.get() < 2 * (i + 1)) {
					Thread.onSpinWait();
				}
				buffers[i].close();
			}
		};
		Thread other = new Thread(closer);
		other.start();
		closer.run();
		other.join();
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.usedBytes()).isZero();
		assertThat(statistics.cachedBytes()).isEqualTo(rounds * 4 * KIB);
	}

	@Test
	void allocateWhenTheDeviceHasNoMemoryShouldThrowARetryableErrorAndLeakNothing() {
		Device device = open(4 * MIB, MemoryConfig.UNLIMITED, 64 * MIB);
		try (OffloadSession session = device.openSession()) {
			session.fill(session.allocate(MIB), (byte) 1);
			assertThatExceptionOfType(DeviceOutOfMemoryException.class).isThrownBy(() -> session.allocate(4 * MIB))
				.withMessageContaining("Device 0 is out of memory: requested 4194304 bytes")
				.satisfies((ex) -> {
					assertThat(ex.getRequestedBytes()).isEqualTo(4 * MIB);
					assertThat(ex.getTotalBytes()).isEqualTo(4 * MIB);
					assertThat(ex.getFreeBytes()).isEqualTo(3 * MIB);
					assertThat(ex.getUsedBytes()).isEqualTo(5 * MIB);
				});
			assertThat(session.failure()).isNull();
			session.fill(session.allocate(MIB), (byte) 2);
		}
		assertThat(device.isHealthy()).isTrue();
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.outOfMemoryFailures()).isEqualTo(1);
		assertThat(statistics.usedBytes()).isZero();
		try (OffloadSession session = device.openSession()) {
			session.fill(session.allocate(3 * MIB), (byte) 4);
		}
		assertThat(device.memoryStatistics().usedBytes()).isZero();
	}

	@Test
	void hostStagingWhenManyBuffersShouldCarveThemFromFewChunksWithoutOverlap() {
		Device device = open(64 * MIB, MemoryConfig.DEFAULTS, 16 * MIB);
		try (OffloadSession session = device.openSession()) {
			HostBuffer[] buffers = new HostBuffer[64];
			for (int i = 0; i < buffers.length; i++) {
				buffers[i] = session.allocateHost(4 * KIB + i * 100);
				buffers[i].putInts(0, filled(buffers[i].size() / 4, i));
			}
			for (int i = 0; i < buffers.length; i++) {
				assertThat(buffers[i].getInts(0, new int[(int) buffers[i].size() / 4])).containsOnly(i);
			}
		}
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.hostAllocations()).isLessThanOrEqualTo(2);
		assertThat(statistics.hostUsedBytes()).isZero();
		assertThat(statistics.hostPeakBytes()).isPositive();
		long allocations = statistics.hostAllocations();
		long synchronizing = statistics.synchronizingCalls();
		for (int round = 0; round < 10; round++) {
			try (OffloadSession session = device.openSession()) {
				for (int i = 0; i < 64; i++) {
					session.allocateHost(4 * KIB + i * 100);
				}
			}
		}
		assertThat(device.memoryStatistics().hostAllocations()).isEqualTo(allocations);
		assertThat(device.memoryStatistics().synchronizingCalls()).isEqualTo(synchronizing);
	}

	@Test
	void concurrentSessionsWhenTheBudgetIsTightShouldGiveEverythingBackOnEveryPath() throws Exception {
		Device device = open(64 * MIB, MemoryConfig.ofBytes(4 * MIB), MIB);
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
		java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
		java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
		for (int t = 0; t < 8; t++) {
			int seed = t;
			done.add(threads.submit(() -> {
				java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
				for (int i = 0; i < 100; i++) {
					OffloadSession session = device.openSession(
							random.nextBoolean() ? StreamPriority.HIGH : StreamPriority.NORMAL, Duration.ofMillis(20));
					try {
						for (int b = random.nextInt(3); b >= 0; b--) {
							session.fill(session.allocate(1 + random.nextLong(2 * MIB)), (byte) b);
						}
						session.allocateHost(1 + random.nextInt(64 * 1024));
					}
					catch (MemoryBudgetExceededException | SessionTimeoutException ex) {
						refused.incrementAndGet();
					}
					finally {
						if (random.nextBoolean()) {
							session.closeAsync().exceptionally((ex) -> null).join();
						}
						else {
							try {
								session.close();
							}
							catch (SessionTimeoutException ex) {
								// Ended by the completion thread once its work is done.
							}
						}
					}
				}
				return null;
			}));
		}
		for (java.util.concurrent.Future<?> each : done) {
			each.get(120, TimeUnit.SECONDS);
		}
		threads.shutdown();
		await().atMost(Duration.ofSeconds(30)).until(() -> device.activeSessions() == 0);
		MemoryStatistics statistics = device.memoryStatistics();
		assertThat(statistics.usedBytes()).isZero();
		assertThat(statistics.hostUsedBytes()).isZero();
		assertThat(statistics.waiting()).isZero();
		assertThat(statistics.peakBytes()).isLessThanOrEqualTo(4 * MIB);
		assertThat(device.streamPool().inUse()).isZero();
	}

	private static int[] filled(long count, int value) {
		int[] values = new int[(int) count];
		java.util.Arrays.fill(values, value);
		return values;
	}

}
