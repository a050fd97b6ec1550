package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadListener;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Batcher} on the host backend: items gathered into one launch, each caller's own
 * result, error and deadline, the queue bound, and results equal to unbatched calls.
 */
class BatcherTests {

	/**
	 * {@code root(int n, const double* x, double* y, int* status)}: y = sqrt(x), status 1
	 * where x < 0.
	 */
	static final ModuleDefinition MODULE = ModuleDefinition.builder("batch-test")
		.hostKernel("root", List.of(ParamKind.INT32, ParamKind.POINTER, ParamKind.POINTER, ParamKind.POINTER), (t) -> {
			int i = t.globalIdX();
			if (i < t.intArg(0)) {
				double x = t.doubles(1).get(i);
				t.doubles(2).put(i, Math.sqrt(x));
				t.ints(3).put(i, (x < 0) ? 1 : 0);
			}
		})
		.build();

	static final KernelRef ROOT = KernelRef.of(MODULE, "root");

	/** Square roots, one per item; NaN marks a failed item, a null item is refused. */
	static final class RootBatch implements BatchKernel<Double, Double> {

		@Override
		public KernelRef kernel() {
			return ROOT;
		}

		@Override
		public void validate(Double item) {
			if (item == null || item.isInfinite()) {
				throw new IllegalArgumentException("item must be a finite number, was " + item);
			}
		}

		@Override
		public void gather(List<Double> items, KernelCall call) {
			int n = items.size();
			call.threads(n, 32)
				.arg(n)
				.in(items.stream().mapToDouble(Double::doubleValue).toArray())
				.outDoubles(n)
				.outInts(n);
		}

		@Override
		public Double slice(KernelResult result, int index) {
			if (result.ints(1)[index] != 0) {
				throw new IllegalArgumentException("item " + index + " of its batch is negative");
			}
			return result.doubles(0)[index];
		}

	}

	private final List<BatchListener.CompletedBatch> batches = new CopyOnWriteArrayList<>();

	private final List<StreamPriority> borrowed = new CopyOnWriteArrayList<>();

	private DeviceRegistry registry;

	private OffloadTemplate template;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(1).workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.listener(new OffloadListener() {

				@Override
				public void streamBorrowed(Device device, StreamPriority priority, long waitNanos) {
					BatcherTests.this.borrowed.add(priority);
				}

			})
			.build();
		this.template = new OffloadTemplate(this.registry, BatchPolicy.DEFAULTS, this.batches::add);
	}

	@AfterEach
	void tearDown() {
		this.template.batchers().forEach(Batcher::close);
		this.registry.close(Duration.ofSeconds(5));
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(30, TimeUnit.SECONDS)).as("latch released").isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Dispatches only a full batch: the delay never ends within a test. */
	private static BatchPolicy fullBatchesOf(int size) {
		return BatchPolicy.DEFAULTS.withMaxBatchSize(size).withMaxDelay(Duration.ofHours(1));
	}

	@Test
	void concurrentItemsShouldRunAsOneBatchAndEachCallerShouldGetItsOwnResult() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(8));
		List<CompletableFuture<Double>> results = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			results.add(batcher.submit((double) i * i));
		}
		for (int i = 0; i < 8; i++) {
			assertThat(results.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i);
		}
		assertThat(this.batches).singleElement().satisfies((batch) -> {
			assertThat(batch.name()).isEqualTo("root");
			assertThat(batch.size()).isEqualTo(8);
			assertThat(batch.deviceId()).isZero();
			assertThat(batch.queueDelaysNanos()).hasSize(8);
			assertThat(batch.failure()).isNull();
		});
		assertThat(batcher.statistics().batches()).isOne();
		assertThat(batcher.statistics().meanBatchSize()).isEqualTo(8);
	}

	@Test
	void batchedResultsShouldBeBitIdenticalToUnbatchedCalls() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(64));
		List<CompletableFuture<Double>> batched = new ArrayList<>();
		for (int i = 0; i < 64; i++) {
			batched.add(batcher.submit(0.37 * i + 1e-3));
		}
		for (int i = 0; i < 64; i++) {
			double[] alone = this.template.kernel(ROOT)
				.threads(1)
				.arg(1)
				.in(new double[] { 0.37 * i + 1e-3 })
				.outDoubles(1)
				.outInts(1)
				.run()
				.doubles(0);
			assertThat(Double.doubleToRawLongBits(batched.get(i).get(10, TimeUnit.SECONDS)))
				.isEqualTo(Double.doubleToRawLongBits(alone[0]));
		}
	}

	@Test
	void itemTheKernelMarksFailedShouldFailAloneAndTheOthersShouldSucceed() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(3));
		CompletableFuture<Double> four = batcher.submit(4.0);
		CompletableFuture<Double> negative = batcher.submit(-1.0);
		CompletableFuture<Double> nine = batcher.submit(9.0);
		assertThat(four.get(10, TimeUnit.SECONDS)).isEqualTo(2);
		assertThat(nine.get(10, TimeUnit.SECONDS)).isEqualTo(3);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> negative.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalArgumentException.class)
			.withMessageContaining("item 1 of its batch is negative");
		assertThat(batcher.statistics().failed()).isOne();
	}

	@Test
	void badItemShouldBeRefusedBeforeItIsQueued() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(2));
		assertThatIllegalArgumentException().isThrownBy(() -> batcher.submit(Double.POSITIVE_INFINITY))
			.withMessageContaining("finite number");
		CompletableFuture<Double> one = batcher.submit(1.0);
		CompletableFuture<Double> four = batcher.submit(16.0);
		assertThat(one.get(10, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(four.get(10, TimeUnit.SECONDS)).isEqualTo(4);
		assertThat(this.batches).singleElement().extracting(BatchListener.CompletedBatch::size).isEqualTo(2);
	}

	@Test
	void itemWhoseDeadlinePassedWhileQueuedShouldFailAndBeDroppedFromItsBatch() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(2));
		CompletableFuture<Double> late = batcher.submit(4.0, Duration.ofNanos(1));
		CompletableFuture<Double> onTime = batcher.submit(9.0);
		assertThat(onTime.get(10, TimeUnit.SECONDS)).isEqualTo(3);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> late.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(BatchTimeoutException.class)
			.withMessageContaining("dropped from its batch");
		assertThat(this.batches).singleElement().extracting(BatchListener.CompletedBatch::size).isEqualTo(1);
		assertThat(batcher.statistics().expired()).isOne();
	}

	@Test
	void itemWhoseDeadlinePassesWhileTheDispatcherIsBusyShouldFailAtItsDeadline() throws Exception {
		CountDownLatch dispatched = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<List<Integer>> ran = new CopyOnWriteArrayList<>();
		Batcher<Integer, Integer> batcher = this.template.batcher("held", (items) -> {
			ran.add(List.copyOf(items));
			dispatched.countDown();
			// As a dispatcher waiting for a stream with a batch in hand.
			await(release);
			return CompletableFuture.completedFuture(items);
		}, BatchPolicy.DEFAULTS.withMaxBatchSize(1).withMaxDelay(Duration.ofMillis(1)));
		CompletableFuture<Integer> first = batcher.submit(1);
		await(dispatched);
		CompletableFuture<Integer> late = batcher.submit(2, Duration.ofMillis(50));
		try {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> late.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(BatchTimeoutException.class);
			assertThat(batcher.statistics().expired()).isOne();
		}
		finally {
			release.countDown();
		}
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(batcher.submit(3).get(10, TimeUnit.SECONDS)).isEqualTo(3);
		assertThat(ran).as("the expired item is in no batch").containsExactly(List.of(1), List.of(3));
	}

	@Test
	void fullQueueShouldRefuseTheNextItemAtOnce() throws Exception {
		CountDownLatch dispatched = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Batcher<Integer, Integer> batcher = this.template.batcher("held", (items) -> {
			dispatched.countDown();
			await(release);
			return CompletableFuture.completedFuture(items);
		}, BatchPolicy.DEFAULTS.withMaxBatchSize(1).withMaxQueue(2).withMaxDelay(Duration.ZERO));
		CompletableFuture<Integer> first = batcher.submit(1);
		await(dispatched);
		CompletableFuture<Integer> second = batcher.submit(2);
		CompletableFuture<Integer> third = batcher.submit(3);
		assertThatExceptionOfType(BatchQueueFullException.class).isThrownBy(() -> batcher.submit(4))
			.withMessageContaining("holds its maximum of 2 items")
			.satisfies((ex) -> assertThat(ex.getMaxQueue()).isEqualTo(2));
		release.countDown();
		assertThat(List.of(first.get(10, TimeUnit.SECONDS), second.get(10, TimeUnit.SECONDS),
				third.get(10, TimeUnit.SECONDS)))
			.containsExactly(1, 2, 3);
		assertThat(batcher.statistics().refused()).isOne();
	}

	@Test
	void batchCutByTheDelayShouldTakeTheLargestPreferredSizeAndTheRestShouldFollow() throws Exception {
		// The delay is an hour and the maximum 16: the eighth item makes a batch of the
		// largest preferred size at once, and the close cuts the 3 left, as the end of
		// a delay would.
		Batcher<Integer, Integer> sizes = this.template.batcher("sizes",
				(items) -> CompletableFuture.completedFuture(items),
				BatchPolicy.DEFAULTS.withMaxBatchSize(16)
					.withPreferredBatchSizes(4, 8)
					.withMaxDelay(Duration.ofHours(1)));
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < 11; i++) {
			results.add(sizes.submit(i));
		}
		sizes.close();
		for (int i = 0; i < 11; i++) {
			assertThat(results.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i);
		}
		assertThat(this.batches).filteredOn((batch) -> batch.name().equals("sizes"))
			.extracting(BatchListener.CompletedBatch::size)
			.containsExactly(8, 3);
	}

	@Test
	void queueReachingTheLargestPreferredSizeShouldDispatchWithoutWaitingForTheDelay() throws Exception {
		Batcher<Integer, Integer> preferred = this.template.batcher("preferred",
				(items) -> CompletableFuture.completedFuture(items),
				BatchPolicy.DEFAULTS.withMaxBatchSize(16)
					.withPreferredBatchSizes(2, 4)
					.withMaxDelay(Duration.ofHours(1)));
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			results.add(preferred.submit(i));
		}
		// No close and an hour of delay: only the preferred size can have cut it.
		for (int i = 0; i < 4; i++) {
			assertThat(results.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(i);
		}
		assertThat(this.batches).filteredOn((batch) -> batch.name().equals("preferred"))
			.extracting(BatchListener.CompletedBatch::size)
			.containsExactly(4);
	}

	@Test
	void failureOfTheBatchShouldFailEachOfItsItems() {
		Batcher<Integer, Integer> batcher = this.template.batcher("broken",
				(items) -> CompletableFuture.failedFuture(new IllegalStateException("device gone")), fullBatchesOf(2));
		CompletableFuture<Integer> a = batcher.submit(1);
		CompletableFuture<Integer> b = batcher.submit(2);
		for (CompletableFuture<Integer> future : List.of(a, b)) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(IllegalStateException.class)
				.withMessageContaining("device gone");
		}
		assertThat(this.batches).singleElement().satisfies((batch) -> assertThat(batch.failure()).isNotNull());
	}

	@Test
	void kernelFailureShouldFailEachItemOfTheBatch() {
		Batcher<Integer, Integer> batcher = this.template.batcher(new BatchKernel<Integer, Integer>() {

			@Override
			public KernelRef kernel() {
				return TemplateTestKernels.FAIL;
			}

			@Override
			public void gather(List<Integer> items, KernelCall call) {
				call.threads(1).arg(items.size());
			}

			@Override
			public Integer slice(KernelResult result, int index) {
				return index;
			}

		}, fullBatchesOf(2));
		CompletableFuture<Integer> a = batcher.submit(1);
		CompletableFuture<Integer> b = batcher.submit(2);
		for (CompletableFuture<Integer> future : List.of(a, b)) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(BackendException.class);
		}
	}

	@Test
	void functionReturningTheWrongNumberOfResultsShouldFailTheBatch() {
		Batcher<Integer, Integer> batcher = this.template.batcher("short",
				(items) -> CompletableFuture.completedFuture(List.of()), fullBatchesOf(1));
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> batcher.submit(1).get(10, TimeUnit.SECONDS))
			.withMessageContaining("returned 0 results for 1 items");
	}

	@Test
	void batchesShouldRunInSessionsOfTheBatchersPriority() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(1),
				OffloadAttributes.DEFAULTS.withPriority(StreamPriority.HIGH));
		assertThat(batcher.submit(4.0).get(10, TimeUnit.SECONDS)).isEqualTo(2);
		assertThat(this.borrowed).containsOnly(StreamPriority.HIGH);
	}

	@Test
	void closeShouldDispatchTheQueuedItemsWithoutWaitingForTheDelay() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(100));
		CompletableFuture<Double> queued = batcher.submit(25.0);
		batcher.close();
		assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo(5);
		assertThat(this.template.batchers()).isEmpty();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> batcher.submit(1.0))
			.withMessageContaining("closed");
	}

	@Test
	void manyConcurrentCallersShouldAllGetTheirResults() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(),
				BatchPolicy.DEFAULTS.withMaxBatchSize(64).withMaxDelay(Duration.ofNanos(200_000)));
		List<CompletableFuture<Double>> results = new ArrayList<>();
		List<Thread> callers = new ArrayList<>();
		List<CompletableFuture<Double>> shared = new CopyOnWriteArrayList<>();
		for (int t = 0; t < 4; t++) {
			int base = t * 250;
			Thread caller = new Thread(() -> {
				for (int i = base; i < base + 250; i++) {
					shared.add(batcher.submit((double) i * i));
				}
			});
			caller.start();
			callers.add(caller);
		}
		for (Thread caller : callers) {
			caller.join();
		}
		results.addAll(shared);
		List<Double> roots = new ArrayList<>();
		for (CompletableFuture<Double> result : results) {
			roots.add(result.get(30, TimeUnit.SECONDS));
		}
		assertThat(roots).hasSize(1000).doesNotHaveDuplicates().allMatch((root) -> root == Math.rint(root));
		assertThat(batcher.statistics().items()).isEqualTo(1000);
		assertThat(this.batches.stream().mapToInt(BatchListener.CompletedBatch::size).sum()).isEqualTo(1000);
		assertThat(this.batches).allMatch((batch) -> batch.size() <= 64);
	}

	/**
	 * A batcher over a runner that answers each item with its index times 10, completing
	 * callers' futures through {@code completer}.
	 */
	private static Batcher<Integer, Integer> indexBatcher(int batchSize, Executor completer) {
		Batcher.Runner<Integer, Integer> runner = (items) -> CompletableFuture
			.completedFuture(new Batcher.Slices<>(0, (index) -> items.get(index) * 10));
		return new Batcher<>("slices", 0, fullBatchesOf(batchSize), (item) -> {
		}, runner, BatchListener.NONE, (batcher) -> {
		}, completer);
	}

	private static void assertEachCallerGetsItsOwnResult(Batcher<Integer, Integer> batcher, int callers)
			throws Exception {
		List<CompletableFuture<Integer>> results = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			results.add(batcher.submit(i));
		}
		for (int i = 0; i < callers; i++) {
			assertThat(results.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i * 10);
		}
	}

	@Test
	void callersOfALargeBatchShouldBeWokenInSlicesOnTheCompletionExecutor() throws Exception {
		AtomicInteger slices = new AtomicInteger();
		Executor completer = (task) -> {
			slices.incrementAndGet();
			new Thread(task, "slice").start();
		};
		try (Batcher<Integer, Integer> batcher = indexBatcher(300, completer)) {
			assertEachCallerGetsItsOwnResult(batcher, 300);
		}
		// 300 callers: the first slice on the batch's thread, the others handed off.
		int slice = BatchDispatcher.completionSlice(300, Runtime.getRuntime().availableProcessors());
		assertThat(slices).hasValue((300 - 1) / slice);
	}

	@Test
	void completionSlicesShouldShareABatchAmongTheCpusWithinTheirBounds() {
		// A few dozen callers are still woken by several threads.
		assertThat(BatchDispatcher.completionSlice(60, 16)).isEqualTo(BatchDispatcher.MIN_COMPLETION_SLICE);
		assertThat(BatchDispatcher.completionSlice(60, 2)).isEqualTo(30);
		assertThat(BatchDispatcher.completionSlice(300, 16)).isEqualTo(19);
		assertThat(BatchDispatcher.completionSlice(1000, 2)).isEqualTo(BatchDispatcher.COMPLETION_SLICE);
		assertThat(BatchDispatcher.completionSlice(5, 1)).isEqualTo(BatchDispatcher.MIN_COMPLETION_SLICE);
		assertThat(BatchDispatcher.completionSlice(1, 0)).isEqualTo(BatchDispatcher.MIN_COMPLETION_SLICE);
	}

	@Test
	void callersThatEachWaitForTheirResultBeforeTheNextShouldAllBeServedByTheDelay() throws Exception {
		// Closed-loop callers never fill a batch of 1024: every batch is cut by the
		// delay, and each item must wake the dispatcher or find it awake.
		Batcher.Runner<Integer, Integer> runner = (items) -> CompletableFuture
			.completedFuture(new Batcher.Slices<>(0, (index) -> items.get(index) * 10));
		BatchPolicy policy = BatchPolicy.DEFAULTS.withMaxDelay(Duration.ofNanos(20_000));
		AtomicInteger wrong = new AtomicInteger();
		try (Batcher<Integer, Integer> batcher = new Batcher<>("closed-loop", 0, policy, (item) -> {
		}, runner, BatchListener.NONE, (closed) -> {
		}, Runnable::run)) {
			List<Thread> callers = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int caller = t;
				Thread thread = new Thread(() -> {
					for (int i = 0; i < 2000; i++) {
						int item = caller * 10_000 + i;
						try {
							// A lost wake-up leaves the item queued for ever: the
							// dispatcher sleeps until a later first item.
							if (batcher.submit(item).get(10, TimeUnit.SECONDS) != item * 10) {
								wrong.incrementAndGet();
							}
						}
						catch (Exception ex) {
							wrong.incrementAndGet();
							return;
						}
					}
				});
				callers.add(thread);
				thread.start();
			}
			for (Thread caller : callers) {
				caller.join();
			}
			assertThat(batcher.statistics().items()).isEqualTo(16_000);
			assertThat(batcher.statistics().queued()).isZero();
		}
		assertThat(wrong).hasValue(0);
	}

	@Test
	void callersShouldStillBeWokenWhenTheCompletionExecutorRefusesASlice() throws Exception {
		Executor refusing = (task) -> {
			throw new RejectedExecutionException("shut down");
		};
		try (Batcher<Integer, Integer> batcher = indexBatcher(200, refusing)) {
			assertEachCallerGetsItsOwnResult(batcher, 200);
		}
	}

	@Test
	void everyItemAcceptedAsTheBatcherClosesShouldComplete() throws Exception {
		for (int round = 0; round < 200; round++) {
			Batcher<Integer, Integer> batcher = indexBatcher(8, Runnable::run);
			List<CompletableFuture<Integer>> accepted = new CopyOnWriteArrayList<>();
			AtomicInteger refused = new AtomicInteger();
			CountDownLatch go = new CountDownLatch(1);
			List<Thread> callers = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				Thread caller = new Thread(() -> {
					await(go);
					for (int i = 0; i < 50; i++) {
						try {
							accepted.add(batcher.submit(i));
						}
						catch (IllegalStateException ex) {
							refused.incrementAndGet();
						}
					}
				});
				caller.start();
				callers.add(caller);
			}
			go.countDown();
			batcher.close();
			for (Thread caller : callers) {
				caller.join();
			}
			for (CompletableFuture<Integer> future : accepted) {
				assertThat(future.get(10, TimeUnit.SECONDS)).isNotNull();
			}
			assertThat(accepted.size() + refused.get()).isEqualTo(200);
			assertThat(batcher.statistics().queued()).isZero();
		}
	}

	@Test
	void batchersOfOneNameShouldEachGetTheirOwnNameAndMetricsUntilClosed() throws Exception {
		Batcher<Double, Double> first = this.template.batcher(new RootBatch(), fullBatchesOf(1));
		Batcher<Double, Double> second = this.template.batcher(new RootBatch(), fullBatchesOf(1),
				OffloadAttributes.DEFAULTS.withPriority(StreamPriority.HIGH));
		Batcher<Integer, Integer> third = this.template.batcher("root",
				(items) -> CompletableFuture.completedFuture(items), fullBatchesOf(1));
		assertThat(List.of(first.name(), second.name(), third.name())).containsExactly("root", "root#2", "root#3");
		assertThat(second.submit(9.0).get(10, TimeUnit.SECONDS)).isEqualTo(3);
		assertThat(this.batches).extracting(BatchListener.CompletedBatch::name).containsExactly("root#2");
		assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
			.contains("offload-batcher-root", "offload-batcher-root#2", "offload-batcher-root#3");
		second.close();
		second.close();
		Batcher<Double, Double> fourth = this.template.batcher(new RootBatch(), fullBatchesOf(1));
		assertThat(fourth.name()).isEqualTo("root#2");
		assertThat(this.template.batchers()).extracting(Batcher::name)
			.containsExactlyInAnyOrder("root", "root#3", "root#2");
	}

	@Test
	void aBatcherRefusedByAClosedRegistryShouldNotStayInTheTemplate() {
		this.registry.close(Duration.ofSeconds(5));
		assertThatExceptionOfType(BatcherClosedException.class)
			.isThrownBy(() -> this.template.batcher(new RootBatch(), fullBatchesOf(1)));
		assertThat(this.template.batchers()).isEmpty();
	}

	@Test
	void aBatcherWhoseDispatcherIsInterruptedShouldRefuseItemsAndLeaveTheTemplate() throws Exception {
		Batcher<Double, Double> batcher = this.template.batcher(new RootBatch(), fullBatchesOf(100));
		CompletableFuture<Double> queued = batcher.submit(4.0);
		Thread dispatcher = Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals("offload-batcher-" + batcher.name()))
			.findFirst()
			.orElseThrow();
		dispatcher.interrupt();
		dispatcher.join(TimeUnit.SECONDS.toMillis(30));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> queued.get(10, TimeUnit.SECONDS))
			.withMessageContaining("interrupted");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> batcher.submit(1.0))
			.withMessageContaining("closed");
		assertThat(this.template.batchers()).doesNotContain(batcher);
	}

}
