package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.MemoryConfig;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What an application saw after switching JCuda's exceptions on while Offload ran, in
 * both modes: each test starts a registry, then switches the mode, runs, and closes the
 * registry in that mode.
 */
@GpuTests
class CudaExceptionModeGpuTests {

	private static final int SESSIONS = 50;

	/** A bound that only a deadlock reaches; not a timing. */
	private static final long DEADLOCK_BOUND_SECONDS = 120;

	@ParameterizedTest
	@EnumSource(JCudaExceptionMode.class)
	void closeAsyncWhenKernelsStillRunShouldCompleteEveryFutureNormallyAndDiscardNoStream(JCudaExceptionMode mode) {
		runSwitchedTo(mode, (device) -> {
			Kernel spin = TestKernels.spin(device);
			DeviceBuffer releaseFlag = TestKernels.releaseFlag(device);
			DeviceBuffer outcome = device.allocate(Integer.BYTES);
			TestKernels.warmBufferCache(device, 2);
			long discardedBefore = device.streamPool().statistics().discarded();
			List<CompletableFuture<Void>> closed = new ArrayList<>();
			try {
				for (int i = 0; i < SESSIONS; i++) {
					OffloadSession session = device.openSession();
					session.launch(spin, LaunchConfig.of(1, 1), releaseFlag, outcome, TestKernels.SPIN_LIMIT_NANOS);
					closed.add(session.closeAsync());
				}
				// The completion thread queries each stream and is told NOT_READY
				// (thrown, in the exception mode).
				assertThat(closed).allSatisfy((future) -> assertThat(future).isNotDone());
				assertThat(device.streamPool().inUse()).isEqualTo(SESSIONS);
			}
			finally {
				TestKernels.release(device, releaseFlag);
			}
			join(CompletableFuture.allOf(closed.toArray(CompletableFuture[]::new)));
			assertThat(closed).allSatisfy((future) -> assertThat(future).isCompleted());
			await().atMost(Duration.ofSeconds(DEADLOCK_BOUND_SECONDS)).until(() -> device.streamPool().inUse() == 0);
			assertThat(device.streamPool().statistics().discarded()).isEqualTo(discardedBefore);
			assertThat(device.isHealthy()).isTrue();
			outcome.close();
			releaseFlag.close();
		});
	}

	@ParameterizedTest
	@EnumSource(JCudaExceptionMode.class)
	void allocateWhenMoreThanTheDeviceHoldsShouldThrowOutOfMemoryAndStayHealthy(JCudaExceptionMode mode) {
		// No budget: the driver itself must refuse, in either of JCuda's modes.
		runSwitchedTo(mode, MemoryConfig.UNLIMITED, (device) -> {
			assertThatExceptionOfType(DeviceOutOfMemoryException.class).isThrownBy(() -> device.allocate(1L << 50))
				.satisfies((ex) -> {
					assertThat(ex.getRequestedBytes()).isGreaterThanOrEqualTo(1L << 50);
					assertThat(ex.getCause()).isInstanceOfSatisfying(BackendException.class, (cause) -> {
						assertThat(cause.getErrorName()).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY");
						assertThat(cause.isSticky()).isFalse();
					});
				});
			assertThat(device.isHealthy()).isTrue();
			try (OffloadSession session = device.openSession()) {
				session.fill(session.allocate(64), (byte) 1);
				session.synchronize();
			}
		});
	}

	@ParameterizedTest
	@EnumSource(JCudaExceptionMode.class)
	void allocateWhenMoreThanTheBudgetShouldFailAtOnceAndStayHealthy(JCudaExceptionMode mode) {
		runSwitchedTo(mode, MemoryConfig.DEFAULTS, (device) -> {
			assertThatExceptionOfType(MemoryBudgetExceededException.class).isThrownBy(() -> device.allocate(1L << 50));
			assertThat(device.isHealthy()).isTrue();
		});
	}

	/**
	 * Starts a registry on device 0, switches JCuda to {@code mode}, runs the scenario
	 * and closes the registry (in that mode: closing must not throw either), then
	 * restores the run's mode.
	 */
	private static void runSwitchedTo(JCudaExceptionMode mode, Consumer<Device> scenario) {
		runSwitchedTo(mode, MemoryConfig.DEFAULTS, scenario);
	}

	private static void runSwitchedTo(JCudaExceptionMode mode, MemoryConfig memory, Consumer<Device> scenario) {
		DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create())
			.memory(memory)
			.deviceIds(List.of(0))
			// Every session of a test has a stream from the start: no stream is created
			// while kernels spin.
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(SESSIONS + 8))
			.build();
		try (registry) {
			mode.apply();
			scenario.accept(registry.device(0));
		}
		finally {
			JCudaExceptionMode.configured().apply();
		}
	}

	private static void join(CompletableFuture<Void> all) {
		try {
			all.get(DEADLOCK_BOUND_SECONDS, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new AssertionError("not every closeAsync future completed normally", ex);
		}
	}

}
