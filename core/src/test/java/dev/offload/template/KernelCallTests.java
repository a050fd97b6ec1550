package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryConfig;
import dev.offload.MemoryStatistics;
import dev.offload.StreamPoolConfig;
import dev.offload.TestKernels;
import dev.offload.backend.host.HostBackend;
import dev.offload.internal.memory.MemoryTuning;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link KernelCall}: parameters in order, every array type in and out, buffers the
 * application keeps, the asynchronous form and bad calls.
 */
class KernelCallTests {

	private DeviceRegistry registry;

	private OffloadTemplate template;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(3).workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(2))
			.build();
		this.template = new OffloadTemplate(this.registry);
	}

	@AfterEach
	void tearDown() {
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		for (Device device : this.registry.devices()) {
			assertThat(device.streamPool().inUse()).isZero();
			assertThat(device.activeSessions()).isZero();
		}
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void runShouldPassParametersInTheOrderTheyWereAppended() {
		float[] x = { 1, 2, 3, 4, 5 };
		KernelResult result = this.template.kernel(TemplateTestKernels.SCALE)
			.threads(x.length)
			.arg(x.length)
			.arg(3f)
			.in(x)
			.outFloats(x.length)
			.run();
		assertThat(result.size()).isOne();
		assertThat(result.floats(0)).containsExactly(3, 6, 9, 12, 15);
	}

	@Test
	void runShouldReserveItsInputsAndOutputsOnceAndGiveThemBack() {
		float[] x = new float[1000];
		KernelResult result = this.template.kernel(TemplateTestKernels.SCALE)
			.device(0)
			.threads(x.length)
			.arg(x.length)
			.arg(2f)
			.in(x)
			.outFloats(x.length)
			.run();
		assertThat(result.floats(0)).hasSize(1000);
		MemoryStatistics statistics = this.registry.device(0).memoryStatistics();
		assertThat(statistics.peakBytes()).isEqualTo(2 * Device.allocationSize(4000));
		assertThat(statistics.usedBytes()).isZero();
		assertThat(statistics.waiting()).isZero();
	}

	@Test
	void runShouldCopyAnOutputBackIntoTheStagingOfAnInputItsSize() {
		float[] x = new float[1000];
		Arrays.fill(x, 1.5f);
		KernelResult result = this.template.kernel(TemplateTestKernels.SCALE)
			.device(1)
			.threads(x.length)
			.arg(x.length)
			.arg(2f)
			.in(x)
			.outFloats(x.length)
			.run();
		assertThat(result.floats(0)).hasSize(1000).containsOnly(3f);
		MemoryStatistics statistics = this.registry.device(1).memoryStatistics();
		// One page-locked block of at least 4,000 bytes, not one for the input and
		// another for the output.
		assertThat(statistics.hostPeakBytes()).isBetween(4000L, 2 * 4000L - 1);
		assertThat(statistics.hostUsedBytes()).isZero();
	}

	@Test
	void runShouldCopyEveryArrayTypeInAndReadEveryTypeBack() {
		KernelResult result = this.template.kernel(TemplateTestKernels.MIX)
			.threads(3, 2)
			.arg(3)
			.in(new double[] { 0.5, 1.5, -2 })
			.in(new int[] { 1, 2, 3 })
			.in(new long[] { 10_000_000_000L, 20, 30 })
			.in(new byte[] { 1, -1, 126 })
			.outDoubles(3)
			.outLongs(3)
			.outBytes(3)
			.outInts(3)
			.run();
		assertThat(result.size()).isEqualTo(4);
		assertThat(result.doubles(0)).containsExactly(1, 3, -4);
		assertThat(result.longs(1)).containsExactly(10_000_000_001L, 22, 33);
		assertThat(result.bytes(2)).containsExactly(2, 0, 127);
		assertThat(result.ints(3)).containsExactly(3, 6, 9);
	}

	@Test
	void runWithAnApplicationBufferShouldRunOnItsDeviceAndReuseItAcrossCalls() {
		Device last = this.registry.device(2);
		try (DeviceBuffer factors = last.allocate(4 * Float.BYTES)) {
			this.template.execute(2, (session) -> {
				session.copy(session.hostBuffer(new float[] { 1, 2, 3, 4 }), factors);
				return null;
			});
			for (float scale : new float[] { 2f, -1f }) {
				// Without the buffer, the least busy device would be device 0, where the
				// buffer cannot be used.
				KernelResult result = this.template.kernel(TemplateTestKernels.SCALE)
					.threads(4)
					.arg(4)
					.arg(scale)
					.arg(factors)
					.outFloats(4)
					.run();
				assertThat(result.floats(0)).containsExactly(scale, 2 * scale, 3 * scale, 4 * scale);
				assertThat(result.device()).isSameAs(last);
			}
		}
	}

	@Test
	void runWhenAnotherDeviceIsAskedForThanTheBuffersShouldThrowBeforeRunning() {
		try (DeviceBuffer buffer = this.registry.device(2).allocate(16)) {
			KernelCall call = this.template.kernel(TemplateTestKernels.SCALE)
				.device(1)
				.threads(4)
				.arg(4)
				.arg(1f)
				.arg(buffer)
				.outFloats(4);
			assertThatIllegalArgumentException().isThrownBy(call::run)
				.withMessage("The call of kernel scale asks for device 1 but its buffers are on device 2");
		}
		assertThat(this.registry.device(1).streamPool().statistics().created()).isZero();
	}

	@Test
	void runInsideABoundSessionShouldJoinIt() {
		float[] y = this.template.execute(1, (session) -> {
			float[] scaled = this.template.kernel(TemplateTestKernels.SCALE)
				.threads(2)
				.arg(2)
				.arg(10f)
				.in(new float[] { 1, 2 })
				.outFloats(2)
				.run()
				.floats(0);
			assertThat(session.device().id()).isOne();
			assertThat(session.device().activeSessions()).isOne();
			assertThat(session.isClosed()).isFalse();
			return scaled;
		});
		assertThat(y).containsExactly(10, 20);
		assertThat(this.registry.device(0).streamPool().statistics().created()).isZero();
	}

	@Test
	void runsInALoopInsideABoundSessionShouldDrawWhatTheCallBeforeClosed() {
		assertALoopInABoundSessionHoldsOneCallsMemory(KernelCall::run);
	}

	@Test
	void runAsyncCallsJoinedInALoopInsideABoundSessionShouldDrawWhatTheCallBeforeClosed() {
		assertALoopInABoundSessionHoldsOneCallsMemory((call) -> call.runAsync().join());
	}

	private void assertALoopInABoundSessionHoldsOneCallsMemory(Function<KernelCall, KernelResult> run) {
		float[] x = new float[1000];
		Arrays.fill(x, 1f);
		long reserved = this.template.execute(0, (session) -> {
			for (int call = 1; call <= 50; call++) {
				KernelCall scale = this.template.kernel(TemplateTestKernels.SCALE)
					.threads(x.length)
					.arg(x.length)
					.arg((float) call)
					.in(x)
					.outFloats(x.length);
				float[] y = run.apply(scale).floats(0);
				assertThat(y[999]).isEqualTo(call);
			}
			return session.reservedMemory();
		});
		// One call's input and output, not fifty calls'.
		assertThat(reserved).isEqualTo(2 * Device.allocationSize(4000));
		MemoryStatistics statistics = this.registry.device(0).memoryStatistics();
		assertThat(statistics.peakBytes()).isEqualTo(2 * Device.allocationSize(4000));
		assertThat(statistics.deviceAllocations()).isEqualTo(2);
	}

	@Test
	void runAsyncCallsInFlightTogetherInABoundSessionShouldKeepTheirOwnInputs() {
		List<CompletableFuture<KernelResult>> calls = this.template.execute(0, (session) -> {
			List<CompletableFuture<KernelResult>> futures = new ArrayList<>();
			for (int call = 1; call <= 20; call++) {
				float[] x = new float[1000];
				Arrays.fill(x, call);
				// Each call closes its buffers with its work still enqueued: none may
				// serve the next call before that work is done.
				futures.add(TemplateTestKernels.scaleAsync(this.template, x, 2f));
			}
			return futures;
		});
		assertEachCallDoubledItsNumber(calls);
	}

	/** Asserts that the n-th call (from 1) gave twice n everywhere. */
	private static void assertEachCallDoubledItsNumber(List<CompletableFuture<KernelResult>> calls) {
		for (int call = 1; call <= calls.size(); call++) {
			assertThat(calls.get(call - 1).join().floats(0)).containsOnly(2f * call);
		}
	}

	@Test
	void runAsyncCallsNotWaitedForInABoundSessionShouldGiveTheirBuffersBackWhenTheBudgetRunsShort() {
		long budget = 64 * 1024;
		long perCall = 2 * Device.allocationSize(4000);
		try (DeviceRegistry budgeted = heldRegistry(MemoryConfig.ofBytes(budget))) {
			Device device = budgeted.device(0);
			float[] x = new float[1000];
			List<CompletableFuture<KernelResult>> calls = runAsyncBehindAHeldStream(budgeted,
					() -> device.memoryStatistics().usedBytes() + perCall > budget, (int) (3 * budget / perCall),
					(template, call) -> {
						Arrays.fill(x, call);
						return TemplateTestKernels.scaleAsync(template, x, 2f);
					});
			assertEachCallDoubledItsNumber(calls);
			assertThat(device.memoryStatistics().waitTimeouts()).isZero();
		}
	}

	@Test
	void runAsyncCallsNotWaitedForInABoundSessionShouldHoldBoundedStaging() {
		// 1 MiB in and one float out a call, with no budget to run short: only the
		// session's bound on its closed staging gives the inputs' staging back.
		int calls = (int) (MemoryTuning.SESSION_CLOSED_MAX_HOST_BYTES / (1 << 20)) * 3 / 2;
		try (DeviceRegistry unbudgeted = heldRegistry(MemoryConfig.UNLIMITED)) {
			Device device = unbudgeted.device(0);
			float[] x = new float[(1 << 20) / Float.BYTES];
			List<CompletableFuture<KernelResult>> results = runAsyncBehindAHeldStream(unbudgeted,
					() -> device.memoryStatistics().hostUsedBytes() >= MemoryTuning.SESSION_CLOSED_MAX_HOST_BYTES,
					calls, (template, call) -> {
						x[0] = call;
						return template.kernel(TemplateTestKernels.SCALE)
							.threads(1)
							.arg(1)
							.arg(2f)
							.in(x)
							.outFloats(1)
							.runAsync();
					});
			assertEachCallDoubledItsNumber(results);
			assertThat(device.memoryStatistics().hostPeakBytes())
				.isLessThan(MemoryTuning.SESSION_CLOSED_MAX_HOST_BYTES + 4 * (1 << 20));
		}
	}

	@Test
	void runAsyncCallsNotWaitedForInABoundSessionShouldHoldBoundedBuffers() {
		int perCallClosed = 3;
		int calls = MemoryTuning.SESSION_CLOSED_MAX_COUNT / perCallClosed * 2;
		long perCall = 2 * Device.allocationSize(Float.BYTES);
		try (DeviceRegistry unbudgeted = heldRegistry(MemoryConfig.UNLIMITED)) {
			Device device = unbudgeted.device(0);
			long bound = (MemoryTuning.SESSION_CLOSED_MAX_COUNT / perCallClosed + 4) * perCall;
			List<CompletableFuture<KernelResult>> results = runAsyncBehindAHeldStream(unbudgeted,
					() -> device.memoryStatistics().usedBytes() >= bound - 4 * perCall, calls,
					(template, call) -> TemplateTestKernels.scaleAsync(template, new float[] { call }, 2f));
			assertEachCallDoubledItsNumber(results);
			assertThat(device.memoryStatistics().peakBytes()).isLessThanOrEqualTo(bound);
		}
	}

	private static DeviceRegistry heldRegistry(MemoryConfig memory) {
		return DeviceRegistry.builder(HostBackend.builder().workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(1).withBorrowTimeout(Duration.ofSeconds(2)))
			.memory(memory)
			.build();
	}

	/**
	 * Makes {@code calls} calls (numbered from 1) in one bound session of device 0 whose
	 * stream a held kernel blocks first. The kernel is let go once the caller blocks
	 * while {@code full} holds: before that, no call's work is done, so only the
	 * session's own wait can free its buffers.
	 */
	private static List<CompletableFuture<KernelResult>> runAsyncBehindAHeldStream(DeviceRegistry registry,
			BooleanSupplier full, int calls,
			BiFunction<OffloadTemplate, Integer, CompletableFuture<KernelResult>> call) {
		OffloadTemplate template = new OffloadTemplate(registry);
		Thread caller = Thread.currentThread();
		int gate = TemplateTestKernels.newGate();
		CompletableFuture<Void> opener = CompletableFuture.runAsync(() -> {
			await().atMost(Duration.ofMinutes(2))
				.until(() -> TestKernels.gate(gate).getCount() == 0
						|| (full.getAsBoolean() && caller.getState() != Thread.State.RUNNABLE));
			TemplateTestKernels.open(gate);
		});
		try {
			return template.execute(0, (session) -> {
				session.launch(TemplateTestKernels.HOLD, LaunchConfig.of(1, 1), gate);
				List<CompletableFuture<KernelResult>> futures = new ArrayList<>();
				for (int i = 1; i <= calls; i++) {
					futures.add(call.apply(template, i));
				}
				return futures;
			});
		}
		finally {
			TemplateTestKernels.open(gate);
			opener.join();
		}
	}

	@Test
	void runAsyncShouldCompleteWithTheOutputs() throws Exception {
		CompletableFuture<KernelResult> future = TemplateTestKernels.scaleAsync(this.template, new float[] { 1, 2, 3 },
				-1f);
		KernelResult result = future.get(30, TimeUnit.SECONDS);
		assertThat(result.floats(0)).containsExactly(-1, -2, -3);
		assertThat(result.device()).isSameAs(this.registry.device(0));
	}

	@Test
	void runAsyncWhenTheKernelFailsShouldCompleteWithTheFailure() {
		CompletableFuture<KernelResult> future = this.template.kernel(TemplateTestKernels.FAIL)
			.threads(1)
			.arg(7)
			.runAsync();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(30, TimeUnit.SECONDS))
			.withCauseInstanceOf(BackendException.class);
	}

	@Test
	void runWithoutGeometryShouldNameWhatIsMissing() {
		assertThatIllegalStateException().isThrownBy(() -> this.template.kernel(TemplateTestKernels.SCALE).arg(1).run())
			.withMessage("The call of kernel scale has no launch geometry: give it threads(n) or config(LaunchConfig)");
	}

	@Test
	void runWithAParameterOfTheWrongKindShouldThrowBeforeAnythingRuns() {
		KernelCall call = this.template.kernel(TemplateTestKernels.SCALE)
			.config(LaunchConfig.of(1, 4))
			.arg(4f)
			.arg(1f)
			.in(new float[4])
			.outFloats(4);
		assertThatIllegalArgumentException().isThrownBy(call::run).withMessageContaining("scale");
	}

	@Test
	void badArgumentsShouldBeRejectedWhenAppended() {
		KernelCall call = this.template.kernel(TemplateTestKernels.SCALE).arg(1);
		assertThatIllegalArgumentException().isThrownBy(() -> call.in((float[]) null))
			.withMessage("Parameter 1 of scale: in needs an array of floats, was null");
		assertThatIllegalArgumentException().isThrownBy(() -> call.outInts(-1))
			.withMessage("Parameter 1 of scale: an output needs a count of at least 0, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> call.arg((DeviceBuffer) null))
			.withMessage("Parameter 1 of scale: arg needs a device buffer, was null");
		assertThatIllegalArgumentException().isThrownBy(() -> call.threads(0))
			.withMessage("threads must be at least 1, was 0");
	}

	@Test
	void readingAnOutputAsAnotherTypeShouldNameTheDeclaredType() {
		KernelResult result = this.template.kernel(TemplateTestKernels.SCALE)
			.threads(1)
			.arg(1)
			.arg(2f)
			.in(new float[] { 4 })
			.outFloats(1)
			.run();
		assertThatIllegalArgumentException().isThrownBy(() -> result.ints(0))
			.withMessage("Output 0 holds floats, not ints: read it with floats(0)");
		assertThatIllegalArgumentException().isThrownBy(() -> result.floats(1))
			.withMessage("Output 1 does not exist: the call declared 1 outputs");
	}

}
