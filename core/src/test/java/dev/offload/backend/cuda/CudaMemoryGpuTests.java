package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceOutOfMemoryException;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.MemoryBudgetExceededException;
import dev.offload.MemoryConfig;
import dev.offload.MemoryStatistics;
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Device memory on a real CUDA device: allocations and frees in streams' order that do
 * not wait for a kernel running on another stream, out of memory as a typed, retryable
 * error that leaves the device healthy, and the budget. Each test has a registry of its
 * own, so that the statistics start at zero.
 */
@GpuTests
class CudaMemoryGpuTests {

	private static final long MIB = 1024 * 1024;

	private static DeviceRegistry open(MemoryConfig memory) {
		DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create())
			.deviceIds(List.of(0))
			.memory(memory)
			.build();
		JCudaExceptionMode.configured().apply();
		return registry;
	}

	@Test
	void allocateAndTrimWhileAKernelSpinsOnAnotherStreamShouldNotWaitForIt() throws Exception {
		try (DeviceRegistry registry = open(MemoryConfig.DEFAULTS)) {
			Device device = registry.device(0);
			device.loadModule(TestKernels.SPIN);
			// Page-locked staging of the sizes used below comes from blocks carved before
			// the kernel runs: this test is about device memory.
			try (OffloadSession warm = device.openSession()) {
				warm.allocateHost(3 * MIB + 4096);
				warm.allocateHost(Integer.BYTES);
				warm.allocateHost(Integer.BYTES);
			}
			DeviceBuffer flag = TestKernels.releaseFlag(device);
			long allocationsBefore = device.memoryStatistics().deviceAllocations();
			long synchronizingBefore = device.memoryStatistics().synchronizingCalls();
			OffloadSession spinning = device.openSession();
			DeviceBuffer outcome = TestKernels.launchSpin(spinning, flag);
			CompletableFuture<float[]> other = CompletableFuture.supplyAsync(() -> {
				try (OffloadSession session = device.openSession()) {
					// Sizes no earlier test cached: misses, allocated in this stream's
					// order.
					DeviceBuffer data = session.allocate(3 * MIB + 4096);
					HostBuffer back = session.allocateHost(3 * MIB + 4096);
					session.fill(data, (byte) 0);
					session.copy(data, back);
					session.synchronize();
					return back.getFloats(0, new float[4]);
				}
			});
			assertThat(other.get(60, TimeUnit.SECONDS)).containsOnly(0f);
			// Freeing every cached block is stream-ordered too: nothing waits for the
			// spinning kernel.
			CompletableFuture<Void> trimmed = CompletableFuture.runAsync(device::trimBufferCache);
			trimmed.get(60, TimeUnit.SECONDS);
			// While the kernel spun, nothing called the driver in a way that waits for
			// the
			// whole device (page-locked allocations, plain frees).
			assertThat(device.memoryStatistics().synchronizingCalls()).isEqualTo(synchronizingBefore);
			TestKernels.release(device, flag);
			// The outcome is the spinning session's buffer: read it before that session
			// ends.
			HostBuffer result = spinning.allocateHost(Integer.BYTES);
			spinning.copy(outcome, result);
			spinning.synchronize();
			assertThat(result.getInts(0, new int[1])[0]).isEqualTo(TestKernels.RELEASED);
			spinning.close();
			flag.close();
			MemoryStatistics statistics = device.memoryStatistics();
			assertThat(statistics.deviceAllocations()).isGreaterThan(allocationsBefore);
			assertThat(statistics.usedBytes()).isZero();
		}
	}

	@Test
	void concurrentSessionsOfVaryingSizesShouldComputeRightOnStreamOrderedMemory() throws Exception {
		try (DeviceRegistry registry = open(MemoryConfig.DEFAULTS)) {
			Device device = registry.device(0);
			Kernel saxpy = device.loadModule(TestKernels.SAXPY).kernel("saxpy");
			ExecutorService threads = Executors.newFixedThreadPool(8);
			try {
				List<Future<Boolean>> results = new ArrayList<>();
				for (int t = 0; t < 8; t++) {
					int seed = t;
					results.add(threads.submit(() -> {
						boolean right = true;
						for (int round = 0; round < 20; round++) {
							int n = 1000 + (seed * 7919 + round * 104_729) % 2_000_000;
							right &= saxpyRight(device, saxpy, n, seed + round);
						}
						return right;
					}));
				}
				for (Future<Boolean> result : results) {
					assertThat(result.get(120, TimeUnit.SECONDS)).isTrue();
				}
			}
			finally {
				threads.shutdownNow();
			}
			MemoryStatistics statistics = device.memoryStatistics();
			assertThat(statistics.cacheHits()).isPositive();
			assertThat(statistics.usedBytes()).isZero();
			assertThat(statistics.hostUsedBytes()).isZero();
		}
	}

	@Test
	void allocateMoreThanTheDeviceHasShouldThrowARetryableOutOfMemoryAndKeepTheDeviceHealthy() {
		try (DeviceRegistry registry = open(MemoryConfig.UNLIMITED)) {
			Device device = registry.device(0);
			long total = device.info().totalMemoryBytes();
			try (OffloadSession session = device.openSession()) {
				session.fill(session.allocate(MIB), (byte) 1);
				assertThatExceptionOfType(DeviceOutOfMemoryException.class)
					.isThrownBy(() -> session.allocate(total + 1024 * MIB))
					.satisfies((ex) -> {
						assertThat(ex.getTotalBytes()).isEqualTo(total);
						assertThat(ex.getFreeBytes()).isPositive();
						assertThat(ex.getRequestedBytes()).isGreaterThan(total);
					});
				assertThat(session.failure()).isNull();
				session.fill(session.allocate(MIB), (byte) 2);
				session.synchronize();
			}
			assertThat(device.isHealthy()).isTrue();
			MemoryStatistics statistics = device.memoryStatistics();
			assertThat(statistics.outOfMemoryRetries()).isEqualTo(1);
			assertThat(statistics.outOfMemoryFailures()).isEqualTo(1);
			assertThat(statistics.usedBytes()).isZero();
		}
	}

	@Test
	void budgetOnCudaShouldMakeSessionsWaitAndFailNamingBudgetInUseAndRequested() {
		try (DeviceRegistry registry = open(MemoryConfig.ofBytes(64 * MIB))) {
			Device device = registry.device(0);
			try (OffloadSession holder = device.openSession()) {
				holder.fill(holder.allocate(48 * MIB), (byte) 0);
				try (OffloadSession late = device.openSession(StreamPriority.HIGH, Duration.ofMillis(200))) {
					assertThatExceptionOfType(MemoryBudgetExceededException.class)
						.isThrownBy(() -> late.allocate(32 * MIB))
						.withMessageContaining("requested 33554432 bytes, in use 50331648 of a budget of 67108864");
				}
				assertThatExceptionOfType(MemoryBudgetExceededException.class)
					.isThrownBy(() -> device.allocate(65 * MIB))
					.withMessageContaining("more than the whole budget");
			}
			MemoryStatistics statistics = device.memoryStatistics();
			assertThat(statistics.waitTimeouts()).isEqualTo(1);
			assertThat(statistics.usedBytes()).isZero();
			assertThat(statistics.peakBytes()).isEqualTo(48 * MIB);
		}
	}

	private static boolean saxpyRight(Device device, Kernel saxpy, int n, int seed) {
		float[] x = new float[n];
		float[] y = new float[n];
		for (int i = 0; i < n; i++) {
			x[i] = (i % 1000) + seed;
			y[i] = 1;
		}
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer dx = session.allocate((long) n * Float.BYTES);
			DeviceBuffer dy = session.allocate((long) n * Float.BYTES);
			session.copy(session.hostBuffer(x), dx);
			session.copy(session.hostBuffer(y), dy);
			session.launch(saxpy, LaunchConfig.forThreads(n, 128), n, 2f, dx, dy);
			HostBuffer back = session.allocateHost((long) n * Float.BYTES);
			session.copy(dy, back);
			session.synchronize();
			float[] result = back.getFloats(0, new float[n]);
			for (int i = 0; i < n; i += 997) {
				if (result[i] != 2 * x[i] + 1) {
					return false;
				}
			}
			return result[n - 1] == 2 * x[n - 1] + 1;
		}
	}

}
