package dev.offload.backend.host;

import java.nio.IntBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.offload.BackendException;
import dev.offload.kernel.HostThread;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The host backend schedules a launch's blocks like a GPU: a big grid is split into
 * chunks that every worker takes, a higher-priority stream's work passes a running kernel
 * between two chunks, and a stream's order, its synchronize and its failures are those of
 * one launch.
 */
class GridSchedulingTests {

	/** Blocks of this many threads make one chunk each at the smallest chunk size. */
	private static final int BLOCK = GridLaunch.MIN_CHUNK_THREADS;

	private static final Set<String> workerNames = ConcurrentHashMap.newKeySet();

	private static final AtomicInteger violations = new AtomicInteger();

	private static final AtomicInteger marks = new AtomicInteger();

	private static volatile CountDownLatch secondWorker;

	private static volatile CountDownLatch firstThreadStarted;

	private static volatile CountDownLatch firstThreadGate;

	private static volatile CountDownLatch lastThreadStarted;

	private static volatile CountDownLatch lastThreadGate;

	private static volatile AtomicIntegerArray runs;

	private static final ModuleDefinition MODULE = ModuleDefinition.builder("gridScheduling")
		.hostKernel("workerNames", List.of(), GridSchedulingTests::recordWorker)
		.hostKernel("heldAtBothEnds", List.of(), GridSchedulingTests::holdFirstAndLastThread)
		.hostKernel("countRuns", List.of(), GridSchedulingTests::countRun)
		.hostKernel("step", List.of(ParamKind.INT32, ParamKind.POINTER, ParamKind.POINTER), GridSchedulingTests::step)
		.hostKernel("failAt", List.of(ParamKind.INT32), (t) -> {
			if (t.globalIdX() == t.intArg(0)) {
				throw new IllegalStateException("thread " + t.intArg(0) + " failed on purpose");
			}
		})
		.hostKernel("writeAt", List.of(ParamKind.INT32, ParamKind.POINTER), (t) -> {
			if (t.globalIdX() == t.intArg(0)) {
				t.ints(1).put(t.ints(1).capacity(), 1);
			}
		})
		.hostKernel("mark", List.of(), (t) -> marks.incrementAndGet())
		.build();

	private HostBackend backend;

	private BackendDevice device(int workers) {
		this.backend = HostBackend.builder().workersPerDevice(workers).build();
		return this.backend.devices().get(0);
	}

	@AfterEach
	void tearDown() {
		for (CountDownLatch latch : new CountDownLatch[] { secondWorker, firstThreadGate, lastThreadGate }) {
			if (latch != null) {
				latch.countDown();
			}
		}
		this.backend.close();
		workerNames.clear();
		violations.set(0);
		marks.set(0);
	}

	private static void recordWorker(HostThread thread) {
		workerNames.add(Thread.currentThread().getName());
		if (workerNames.size() > 1) {
			secondWorker.countDown();
		}
		if (thread.globalIdX() == 0) {
			// Holds the first chunk's worker until another worker has run a thread of the
			// same launch.
			awaitLatch(secondWorker);
		}
	}

	private static void holdFirstAndLastThread(HostThread thread) {
		int id = thread.globalIdX();
		if (id == 0) {
			firstThreadStarted.countDown();
			awaitLatch(firstThreadGate);
		}
		if (id == thread.gridDimX() * thread.blockDimX() - 1) {
			lastThreadStarted.countDown();
			awaitLatch(lastThreadGate);
		}
	}

	private static void countRun(HostThread t) {
		int block = (t.blockIdxZ() * t.gridDimY() + t.blockIdxY()) * t.gridDimX() + t.blockIdxX();
		int inBlock = (t.threadIdxZ() * t.blockDimY() + t.threadIdxY()) * t.blockDimX() + t.threadIdxX();
		runs.incrementAndGet(block * t.blockDimX() * t.blockDimY() * t.blockDimZ() + inBlock);
	}

	/**
	 * Launch {@code k} of a chain: every thread reads, in the buffer that launch
	 * {@code k - 1} wrote, the element at the other end of the grid (another chunk's),
	 * expects {@code k}, and writes {@code k + 1} to its own element of the other buffer,
	 * which launch {@code k - 1} read.
	 */
	private static void step(HostThread t) {
		int k = t.intArg(0);
		IntBuffer from = t.ints(1);
		int i = t.globalIdX();
		if (from.get(from.capacity() - 1 - i) != k) {
			violations.incrementAndGet();
		}
		t.ints(2).put(i, k + 1);
	}

	private static boolean awaitLatch(CountDownLatch latch) {
		try {
			// A hang guard only: a kernel that waits longer lets the test fail on its
			// assertions.
			return latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static BackendKernel kernel(BackendDevice device, String name) {
		return device.loadModule(MODULE).kernels().get(name);
	}

	private static void launch(BackendStream stream, BackendKernel kernel, int blocks, Object... args) {
		stream.launch(kernel, blocks, 1, 1, BLOCK, 1, 1, 0, args);
	}

	private static void launchOneThread(BackendStream stream, BackendKernel kernel) {
		stream.launch(kernel, 1, 1, 1, 1, 1, 1, 0, new Object[0]);
	}

	@Test
	void bigLaunchWhenWorkersAreFreeShouldRunOnMoreThanOneWorker() {
		BackendDevice device = device(2);
		secondWorker = new CountDownLatch(1);
		BackendStream stream = device.createStream(0);
		launch(stream, kernel(device, "workerNames"), 64);
		stream.synchronize();
		assertThat(secondWorker.getCount()).isZero();
		assertThat(workerNames).hasSize(2).allMatch((name) -> name.startsWith("offload-host0-worker-"));
	}

	@Test
	void chunkedLaunchShouldRunEveryThreadOfA3dGridOnceWithItsIndices() {
		BackendDevice device = device(3);
		int gridX = 5;
		int gridY = 3;
		int gridZ = 4;
		int blockX = 8;
		int blockY = 4;
		int blockZ = 2;
		runs = new AtomicIntegerArray(gridX * gridY * gridZ * blockX * blockY * blockZ);
		BackendStream stream = device.createStream(0);
		stream.launch(kernel(device, "countRuns"), gridX, gridY, gridZ, blockX, blockY, blockZ, 0, new Object[0]);
		stream.synchronize();
		for (int i = 0; i < runs.length(); i++) {
			assertThat(runs.get(i)).as("runs of thread %d", i).isEqualTo(1);
		}
	}

	@ParameterizedTest(name = "{0} worker(s), priority {1}")
	@CsvSource({ "1, -5", "2, -5", "1, 0" })
	void shortKernelWhenLongNormalKernelRunsShouldFinishBetweenItsChunks(int workers, int priority) {
		BackendDevice device = device(workers);
		firstThreadStarted = new CountDownLatch(1);
		firstThreadGate = new CountDownLatch(1);
		lastThreadStarted = new CountDownLatch(1);
		lastThreadGate = new CountDownLatch(1);
		BackendStream normal = device.createStream(HostDevice.LEAST_PRIORITY);
		BackendStream other = device.createStream(priority);
		launch(normal, kernel(device, "heldAtBothEnds"), 16);
		awaitLatch(firstThreadStarted);
		if (workers > 1) {
			// Every worker is now in the NORMAL kernel: one at its first thread, another
			// at its last.
			assertThat(awaitLatch(lastThreadStarted)).isTrue();
		}
		launchOneThread(other, kernel(device, "mark"));
		// The first chunk ends; its worker takes the other stream's kernel, which waits
		// for no more than a chunk: a HIGH stream's work comes before the NORMAL kernel's
		// chunks, and equal priorities take turns.
		firstThreadGate.countDown();
		assertThat(CompletableFuture.runAsync(other::synchronize)).succeedsWithin(Duration.ofSeconds(20));
		assertThat(marks).hasValue(1);
		// The NORMAL kernel's last thread is still held, so its launch cannot have
		// finished.
		assertThat(normal.query()).isFalse();
		lastThreadGate.countDown();
		normal.synchronize();
		assertThat(lastThreadStarted.getCount()).isZero();
		assertThat(normal.query()).isTrue();
	}

	@Test
	void chunkedLaunchesOnOneStreamShouldRunInOrderAndSynchronizeShouldWaitForTheirLastChunk() {
		BackendDevice device = device(4);
		int blocks = 64;
		NativeMemory even = device.allocateDevice(4L * blocks * BLOCK);
		NativeMemory odd = device.allocateDevice(4L * blocks * BLOCK);
		BackendStream stream = device.createStream(0);
		BackendKernel step = kernel(device, "step");
		int launches = 20;
		for (int k = 0; k < launches; k++) {
			launch(stream, step, blocks, k, (k % 2 == 0) ? even : odd, (k % 2 == 0) ? odd : even);
		}
		stream.synchronize();
		assertThat(violations).hasValue(0);
		IntBuffer last = ((launches % 2 == 0) ? even : odd).hostView().asIntBuffer();
		for (int i = 0; i < last.capacity(); i++) {
			assertThat(last.get(i)).as("element %d", i).isEqualTo(launches);
		}
	}

	@Test
	void eventRecordedAfterChunkedLaunchShouldHoldAWaitingStreamUntilTheLastChunk() {
		BackendDevice device = device(4);
		int blocks = 64;
		NativeMemory zeros = device.allocateDevice(4L * blocks * BLOCK);
		NativeMemory ones = device.allocateDevice(4L * blocks * BLOCK);
		NativeMemory twos = device.allocateDevice(4L * blocks * BLOCK);
		BackendKernel step = kernel(device, "step");
		BackendStream producer = device.createStream(0);
		BackendStream consumer = device.createStream(0);
		BackendEvent written = device.createEvent();
		launch(producer, step, blocks, 0, zeros, ones);
		producer.record(written);
		consumer.waitFor(written);
		launch(consumer, step, blocks, 1, ones, twos);
		consumer.synchronize();
		assertThat(violations).hasValue(0);
		assertThat(written.query()).isTrue();
	}

	@Test
	void failingChunkShouldFailTheLaunchAndSkipTheStreamsLaterWork() {
		BackendDevice device = device(2);
		BackendStream stream = device.createStream(0);
		int blocks = 16;
		launch(stream, kernel(device, "failAt"), blocks, blocks * BLOCK - 1);
		launchOneThread(stream, kernel(device, "mark"));
		assertThatExceptionOfType(BackendException.class).isThrownBy(stream::synchronize)
			.withMessageContaining("kernel 'failAt'")
			.withMessageContaining("HOST_ERROR_LAUNCH_FAILED")
			.withMessageContaining("thread " + (blocks * BLOCK - 1) + " failed on purpose")
			.satisfies((ex) -> assertThat(ex.isSticky()).isFalse());
		assertThat(marks).hasValue(0);
		assertThatExceptionOfType(BackendException.class).isThrownBy(stream::query);
		// The failure is the stream's, not the device's.
		BackendStream other = device.createStream(0);
		launchOneThread(other, kernel(device, "mark"));
		other.synchronize();
		assertThat(marks).hasValue(1);
	}

	@Test
	void outOfBoundsAccessInALaterChunkShouldBeAStickyIllegalAddress() {
		BackendDevice device = device(2);
		BackendStream stream = device.createStream(0);
		int blocks = 16;
		NativeMemory buffer = device.allocateDevice(64);
		launch(stream, kernel(device, "writeAt"), blocks, blocks * BLOCK - 1, buffer);
		assertThatExceptionOfType(BackendException.class).isThrownBy(stream::synchronize)
			.withMessageContaining("HOST_ERROR_ILLEGAL_ADDRESS")
			.satisfies((ex) -> assertThat(ex.isSticky()).isTrue());
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> device.createStream(0))
			.withMessageContaining("the device failed earlier, in kernel 'writeAt'");
	}

}
