package dev.offload.backend.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import jcuda.driver.JCudaDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.StreamEvent;
import dev.offload.StreamPriority;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Sessions on a real CUDA device: results, the stream-sharing hazard (a sync waiting for
 * another task's work), asynchronous close, and wrong launches that must end as
 * exceptions, not crashes. JCuda's exception mode is the run's
 * ({@link JCudaExceptionMode#configured()}), switched once the registry started; some
 * tests switch it themselves.
 */
@GpuTests
class CudaSessionGpuTests {

	private static final int SHORT_SESSION_THREADS = 8;

	private static final int SHORT_SESSIONS_PER_THREAD = 25;

	private static DeviceRegistry registry;

	private static Device device;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(CudaTestBackends.create()).deviceIds(List.of(0)).build();
		device = registry.device(0);
		JCudaExceptionMode.configured().apply();
		// Modules load before any kernel spins: loading is not what these tests measure.
		device.loadModule(TestKernels.EMPTY);
		device.loadModule(TestKernels.SAXPY);
		device.loadModule(TestKernels.SPIN);
		TestKernels.warmBufferCache(device, SHORT_SESSION_THREADS + 4);
	}

	@AfterAll
	static void closeRegistry() {
		if (registry != null) {
			registry.close();
		}
	}

	@Test
	void launchWhenSaxpyShouldMatchTheHostComputation() {
		int n = (1 << 20) + 3;
		float a = 2.5f;
		Random random = new Random(42);
		float[] x = new float[n];
		float[] y = new float[n];
		for (int i = 0; i < n; i++) {
			x[i] = random.nextFloat() * 100 - 50;
			y[i] = random.nextFloat() * 100 - 50;
		}
		float[] expected = new float[n];
		for (int i = 0; i < n; i++) {
			// The PTX computes fma.rn.f32(x, a, y): one rounding, as Math.fma.
			expected[i] = Math.fma(x[i], a, y[i]);
		}
		float[] actual = new float[n];
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer dx = session.allocate((long) n * Float.BYTES);
			DeviceBuffer dy = session.allocate((long) n * Float.BYTES);
			session.copy(session.hostBuffer(x), dx);
			session.copy(session.hostBuffer(y), dy);
			session.launch(TestKernels.saxpy(device), LaunchConfig.forThreads(n, 256), n, a, dx, dy);
			HostBuffer result = session.allocateHost((long) n * Float.BYTES);
			session.copy(dy, result);
			session.synchronize();
			result.getFloats(0, actual);
		}
		// isEqualTo compares with Arrays.equals; containsExactly would diff 2^20 elements
		// quadratically.
		assertThat(actual).isEqualTo(expected);
	}

	@Test
	void copyAndFillWhenDeviceAndHostMemoryShouldMoveTheBytes() {
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer first = session.allocate(1000);
			DeviceBuffer second = session.allocate(1000);
			HostBuffer host = session.allocateHost(1000);
			session.fill(first, (byte) 7);
			session.fill(first, 100, 50, (byte) 9);
			session.copy(first, second);
			session.copy(second, 0, host, 0, 1000);
			session.fill(host, 990, 10, (byte) 3);
			session.synchronize();
			byte[] bytes = new byte[1000];
			host.asByteBuffer().get(bytes);
			for (int i = 0; i < bytes.length; i++) {
				byte expected = (i >= 990) ? (byte) 3 : (i >= 100 && i < 150) ? (byte) 9 : (byte) 7;
				assertThat(bytes[i]).as("byte %d", i).isEqualTo(expected);
			}
			HostBuffer other = session.allocateHost(16);
			session.copy(host, 98, other, 0, 16);
			session.synchronize();
			assertThat(other.asByteBuffer().get(0)).isEqualTo((byte) 7);
			assertThat(other.asByteBuffer().get(2)).isEqualTo((byte) 9);
		}
	}

	@Test
	void synchronizeWhenAnotherSessionSpinsShouldWaitOnlyForItsOwnWork() throws Exception {
		DeviceBuffer releaseFlag = TestKernels.releaseFlag(device);
		OffloadSession longSession = device.openSession();
		try {
			DeviceBuffer outcome = TestKernels.launchSpin(longSession, releaseFlag);
			StreamEvent spinDone = longSession.recordEvent();
			assertThat(spinDone.isComplete()).isFalse();
			ExecutorService threads = Executors.newFixedThreadPool(SHORT_SESSION_THREADS);
			try {
				List<Future<Integer>> shortWork = new ArrayList<>();
				for (int t = 0; t < SHORT_SESSION_THREADS; t++) {
					int seed = t;
					shortWork.add(threads.submit(() -> runShortSessions(seed)));
				}
				for (Future<Integer> done : shortWork) {
					// Far below the spin kernel's own limit: a short session that waited
					// for it would time out here.
					assertThat(done.get(20, TimeUnit.SECONDS)).isEqualTo(SHORT_SESSIONS_PER_THREAD);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(spinDone.isComplete())
				.as("the long session's kernel still spins after %d short sessions",
						SHORT_SESSION_THREADS * SHORT_SESSIONS_PER_THREAD)
				.isFalse();
			assertThat(longSession.streamId()).isNotNegative();
			TestKernels.release(device, releaseFlag);
			assertThat(TestKernels.readInt(longSession, outcome)).as("spin outcome (1 = released, 2 = timed out)")
				.isEqualTo(TestKernels.RELEASED);
		}
		finally {
			longSession.close();
			releaseFlag.close();
		}
	}

	private static int runShortSessions(int seed) {
		Kernel saxpy = TestKernels.saxpy(device);
		int completed = 0;
		for (int s = 0; s < SHORT_SESSIONS_PER_THREAD; s++) {
			assertThat(TestKernels.saxpyLast(device, saxpy, seed)).isEqualTo(2f * (1024 - 1 + seed) + 1);
			completed++;
		}
		return completed;
	}

	@Test
	void closeAsyncWhenWorkRunsShouldCompleteOnlyAfterItAndReturnTheStream() throws Exception {
		DeviceBuffer releaseFlag = TestKernels.releaseFlag(device);
		try {
			OffloadSession session = device.openSession();
			TestKernels.launchSpin(session, releaseFlag);
			CompletableFuture<Void> closed = session.closeAsync();
			assertThat(closed).isNotDone();
			assertThat(device.streamPool().inUse()).isEqualTo(1);
			TestKernels.release(device, releaseFlag);
			closed.get(20, TimeUnit.SECONDS);
			assertThat(closed).isCompleted();
			await().atMost(java.time.Duration.ofSeconds(5)).until(() -> device.streamPool().inUse() == 0);
		}
		finally {
			releaseFlag.close();
		}
	}

	@Test
	void waitForWhenEventOfAnotherSessionShouldHoldBackOnlyTheWaitingStream() throws Exception {
		DeviceBuffer releaseFlag = TestKernels.releaseFlag(device);
		try (OffloadSession producer = device.openSession(); OffloadSession consumer = device.openSession()) {
			DeviceBuffer outcome = TestKernels.launchSpin(producer, releaseFlag);
			StreamEvent produced = producer.recordEvent();
			DeviceBuffer data = consumer.allocate(64);
			consumer.waitFor(produced);
			consumer.fill(data, (byte) 5);
			StreamEvent consumed = consumer.recordEvent();
			try (OffloadSession bystander = device.openSession()) {
				bystander.fill(bystander.allocate(64), (byte) 1);
				bystander.synchronize();
			}
			assertThat(consumed.isComplete()).as("the consumer waits for the spinning producer").isFalse();
			TestKernels.release(device, releaseFlag);
			consumer.synchronize();
			assertThat(produced.isComplete()).isTrue();
			HostBuffer host = consumer.allocateHost(64);
			consumer.copy(data, host);
			consumer.synchronize();
			assertThat(host.asByteBuffer().get(63)).isEqualTo((byte) 5);
			assertThat(TestKernels.readInt(producer, outcome))
				.as("spin outcome (1 = released, 2 = timed out: the releaser waited behind the consumer's wait)")
				.isEqualTo(TestKernels.RELEASED);
		}
		finally {
			releaseFlag.close();
		}
	}

	@Test
	void launchWhenArgumentHasWrongTypeShouldThrowBeforeAnythingIsEnqueued() {
		Kernel saxpy = TestKernels.saxpy(device);
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer y = session.allocate(64);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> session.launch(saxpy, LaunchConfig.of(1, 16), 16, 2.0, y, y))
				.withMessageContaining("Argument 1 of kernel 'saxpy' must be FLOAT32");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> session.launch(saxpy, LaunchConfig.of(1, 16), 16, 2f, y))
				.withMessageContaining("takes 4 arguments");
			session.fill(y, (byte) 0);
			session.launch(saxpy, LaunchConfig.of(1, 16), 16, 2f, y, y);
			session.synchronize();
		}
		assertThat(device.isHealthy()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(JCudaExceptionMode.class)
	void launchWhenSharedMemoryTooLargeShouldThrowAndLeaveTheDeviceHealthy(JCudaExceptionMode mode) {
		Kernel empty = device.loadModule(TestKernels.EMPTY).kernel("empty");
		long discardedBefore = device.streamPool().statistics().discarded();
		// Switched while the registry runs, as an application may do at any time.
		mode.apply();
		try {
			try (OffloadSession session = device.openSession()) {
				assertThatExceptionOfType(BackendException.class)
					.isThrownBy(() -> session.launch(empty, LaunchConfig.of(1, 32).withSharedMemory(1 << 20)))
					.satisfies((ex) -> {
						assertThat(ex.getErrorName()).isIn("CUDA_ERROR_INVALID_VALUE",
								"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
						assertThat(ex.isSticky()).isFalse();
						assertThat(ex.getDeviceId()).isZero();
					})
					.withMessageContaining("cuLaunchKernel(empty")
					.withMessageContaining("1048576 bytes of shared memory");
			}
			assertThat(device.isHealthy()).isTrue();
			assertThat(device.streamPool().statistics().discarded()).isEqualTo(discardedBefore + 1);
			try (OffloadSession next = device.openSession()) {
				next.launch(empty, LaunchConfig.of(1, 32));
				next.synchronize();
			}
		}
		finally {
			JCudaExceptionMode.configured().apply();
		}
	}

	@Test
	void streamWhenUsedByAnotherLibraryShouldBelongToTheSession() {
		CudaTestBackends.assumeJCudaBinding("CudaSessions' handles");
		try (OffloadSession session = device.openSession(StreamPriority.HIGH)) {
			DeviceBuffer buffer = session.allocate(256);
			CudaSessions.makeContextCurrent(session);
			int result = JCudaDriver.cuMemsetD8Async(CudaSessions.devicePointer(buffer), (byte) 42, 256,
					CudaSessions.stream(session));
			assertThat(result).isZero();
			HostBuffer host = session.allocateHost(256);
			session.copy(buffer, host);
			session.synchronize();
			assertThat(host.asByteBuffer().get(255)).isEqualTo((byte) 42);
		}
	}

}
