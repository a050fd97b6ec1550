package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jcuda.driver.CUcontext;
import jcuda.driver.JCudaDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.spi.Backend;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.StreamEvent;
import dev.offload.StreamPoolConfig;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One registry over every GPU of the machine, the same list as the host backend's
 * {@code MultiDeviceTests}: a pool and a primary context each, the behaviour suite on GPU
 * 1, a thread alternating GPUs, events and copies across GPUs (results checked),
 * least-busy placement, a sticky error on GPU 1 confined to it (in a child JVM), and
 * {@code CUDA_VISIBLE_DEVICES} honoured (in a child JVM). Skipped, with the reason,
 * unless at least two CUDA devices exist.
 */
@Tag("gpu")
@ExtendWith(MultiGpuCondition.class)
class MultiGpuTests {

	private static final int N = 1 << 20;

	private static final long BYTES = (long) N * Float.BYTES;

	private Backend backend;

	private DeviceRegistry registry;

	@BeforeEach
	void openRegistry() {
		this.backend = CudaTestBackends.create();
		this.registry = DeviceRegistry.builder(this.backend)
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(8))
			.build();
		// Every module loads before a spin kernel holds a GPU: loading can wait for
		// running kernels.
		this.registry.devices().forEach((device) -> {
			TestKernels.saxpy(device);
			TestKernels.spin(device);
		});
		JCudaExceptionMode.configured().apply();
	}

	@AfterEach
	void closeRegistry() {
		this.registry.close(Duration.ofSeconds(30));
	}

	@Test
	void discoveryShouldGiveEachGpuItsOwnPoolAndPrimaryContext() {
		CudaTestBackends.assumeJCudaBinding("JCuda's current context per device");
		int count = CudaTestBackends.probe().deviceCount();
		assertThat(this.registry.ids()).containsExactlyElementsOf(IntStream.range(0, count).boxed().toList());
		Set<String> contexts = new HashSet<>();
		for (Device device : this.registry.devices()) {
			CudaDevice cuda = (CudaDevice) this.backend.devices().get(device.id());
			try (OffloadSession session = device.openSession()) {
				session.streamId();
				CUcontext current = new CUcontext();
				JCudaDriver.cuCtxGetCurrent(current);
				// The session's borrow made the device's primary context current on this
				// thread.
				assertThat(current.toString()).isEqualTo(cuda.context().toString());
				assertThat(device.streamPool().inUse()).isEqualTo(1);
			}
			contexts.add(cuda.context().toString());
		}
		assertThat(contexts).hasSize(count);
		assertThat(this.registry.devices().stream().map(Device::streamPool).distinct()).hasSize(count);
	}

	@Test
	void sessionsWhenOneThreadAlternatesBetweenGpusShouldComputeEachResultOnItsGpu() {
		int[] order = { 0, 1, 0, 1, 1, 0, 0, 1 };
		for (int round = 0; round < 4; round++) {
			for (int i = 0; i < order.length; i++) {
				float a = round * 10 + i + 1;
				try (OffloadSession session = this.registry.openSession(order[i])) {
					assertThat(saxpy(session, a)).as("round %d, GPU %d", round, order[i]).isEqualTo(expected(a));
				}
			}
		}
	}

	@Test
	void templateWhenCallsNestOnDifferentGpusShouldRunEachOnItsGpu() {
		OffloadTemplate template = new OffloadTemplate(this.registry);
		float[] inner = template.execute(0, (outer) -> {
			float[] onOne = template.execute(1, (session) -> {
				assertThat(session.device().id()).isEqualTo(1);
				return saxpy(session, 3);
			});
			assertThat(template.currentSession()).containsSame(outer);
			assertThat(saxpy(outer, 5)).isEqualTo(expected(5));
			return onOne;
		});
		assertThat(inner).isEqualTo(expected(3));
	}

	@Test
	void openSessionWhenSessionsAreHeldShouldSpreadThemOverTheGpus() {
		int count = this.registry.devices().size();
		List<OffloadSession> held = new ArrayList<>();
		try {
			for (int i = 0; i < 2 * count; i++) {
				held.add(this.registry.openSession());
			}
			Map<Integer, Long> perDevice = held.stream()
				.collect(Collectors.groupingBy((session) -> session.device().id(), Collectors.counting()));
			assertThat(perDevice).hasSize(count).allSatisfy((id, sessions) -> assertThat(sessions).isEqualTo(2));
		}
		finally {
			held.forEach(OffloadSession::close);
		}
	}

	@Test
	void waitForWhenEventRecordedOnAnotherGpuShouldHoldTheWaitingStreamUntilThen() {
		Device first = this.registry.device(0);
		Device second = this.registry.device(1);
		TestKernels.warmBufferCache(first, 4);
		DeviceBuffer flag = TestKernels.releaseFlag(first);
		try (OffloadSession producer = first.openSession(); OffloadSession consumer = second.openSession()) {
			DeviceBuffer outcome = TestKernels.launchSpin(producer, flag);
			StreamEvent produced = producer.recordEvent();
			consumer.waitFor(produced);
			HostBuffer result = enqueueSaxpy(consumer, 6);
			StreamEvent consumed = consumer.recordEvent();
			assertThat(consumed.isComplete()).as("GPU 1's work behind GPU 0's spinning kernel").isFalse();
			TestKernels.release(first, flag);
			consumer.synchronize();
			assertThat(produced.isComplete()).isTrue();
			assertThat(result.getFloats(0, new float[N])).isEqualTo(expected(6));
			assertThat(TestKernels.readInt(producer, outcome)).isEqualTo(TestKernels.RELEASED);
		}
		finally {
			flag.close();
		}
	}

	@Test
	void copyWhenSourceIsOnAnotherGpuShouldStageItAndCopyTheValues() {
		float[] values = values(3);
		try (DeviceBuffer onFirst = this.registry.device(0).allocate(BYTES)) {
			try (OffloadSession writer = this.registry.openSession(0)) {
				writer.copy(writer.hostBuffer(values), onFirst);
			}
			try (OffloadSession reader = this.registry.openSession(1)) {
				DeviceBuffer onSecond = reader.allocate(BYTES);
				HostBuffer back = reader.allocateHost(BYTES);
				reader.copy(onFirst, onSecond);
				reader.copy(onSecond, back);
				reader.synchronize();
				assertThat(back.getFloats(0, new float[N])).isEqualTo(values);
			}
		}
	}

	@Test
	void copyWhenSourceOnAnotherGpuIsWrittenBehindAnEventShouldCopyWhatTheEventCovers() throws Exception {
		Device first = this.registry.device(0);
		TestKernels.warmBufferCache(first, 4);
		try (OffloadSession warm = first.openSession()) {
			// The staging buffer comes from the cache: no driver allocation while the
			// spin kernel holds GPU 0.
			warm.allocateHost(BYTES);
		}
		DeviceBuffer flag = TestKernels.releaseFlag(first);
		try (DeviceBuffer onFirst = first.allocate(BYTES);
				OffloadSession writer = first.openSession();
				OffloadSession reader = this.registry.openSession(1)) {
			HostBuffer source = writer.hostBuffer(values(9));
			writer.fill(onFirst, (byte) 0);
			TestKernels.launchSpin(writer, flag);
			writer.copy(source, onFirst);
			StreamEvent written = writer.recordEvent();
			HostBuffer back = reader.allocateHost(BYTES);
			reader.waitFor(written);
			CompletableFuture<Void> copied = CompletableFuture.runAsync(() -> {
				reader.copy(onFirst, back);
				reader.synchronize();
			});
			// Released once the copying thread waits for its session's work (for the
			// event, or, had the staging not waited for it, in the synchronize after it).
			await().atMost(Duration.ofSeconds(60)).until(reader::isAwaitingWork);
			TestKernels.release(first, flag);
			copied.get(60, TimeUnit.SECONDS);
			assertThat(back.getFloats(0, new float[N])).isEqualTo(values(9));
		}
		finally {
			flag.close();
		}
	}

	@Test
	void stickyErrorOnOneGpuShouldFailItOnlyWhileTheOthersServe() throws Exception {
		ChildJvm.Result child = ChildJvm.run("sticky error on GPU 1", MultiGpuFailureScenario.class, Map.of(),
				JCudaExceptionMode.configured().name());
		assertThat(child.exited()).as("the child JVM exited").isTrue();
		assertThat(child.exitCode()).as("the child JVM's exit code").isZero();
		String text = child.output();
		assertThat(text).contains("SYNCHRONIZE_ERROR=CUDA_ERROR_ILLEGAL_ADDRESS sticky=true")
			.contains("HEALTHY_0=true")
			.contains("HEALTHY_1=false")
			.contains("SAXPY_0=right")
			.doesNotContain("=wrong")
			.contains("OPEN_SESSION_1=DeviceFailedException Device 1 has failed")
			.contains("LEAST_BUSY_ON_1=0")
			.contains("REGISTRY_CLOSED=true")
			.contains("JVM_ALIVE=true");
	}

	@Test
	void cudaVisibleDevicesWhenSetInTheEnvironmentShouldLimitTheDevicesSeen() throws Exception {
		String secondName = this.registry.device(1).name();
		ChildJvm.Result child = ChildJvm.run("CUDA_VISIBLE_DEVICES=1", VisibleDevicesScenario.class,
				Map.of("CUDA_VISIBLE_DEVICES", "1"));
		assertThat(child.exited()).as("the child JVM exited").isTrue();
		assertThat(child.exitCode()).as("the child JVM's exit code").isZero();
		assertThat(child.output()).contains("DEVICE_COUNT=1")
			.contains("IDS=[0]")
			.contains("NAME_0=" + secondName)
			.contains("JVM_ALIVE=true");
	}

	/** Runs {@code y = a * x + y} on the session and returns y (x[i] = i, y[i] = 1). */
	private static float[] saxpy(OffloadSession session, float a) {
		HostBuffer result = enqueueSaxpy(session, a);
		session.synchronize();
		return result.getFloats(0, new float[N]);
	}

	private static HostBuffer enqueueSaxpy(OffloadSession session, float a) {
		float[] x = new float[N];
		float[] y = new float[N];
		for (int i = 0; i < N; i++) {
			x[i] = i;
			y[i] = 1;
		}
		DeviceBuffer dx = session.allocate(BYTES);
		DeviceBuffer dy = session.allocate(BYTES);
		session.copy(session.hostBuffer(x), dx);
		session.copy(session.hostBuffer(y), dy);
		session.launch(TestKernels.saxpy(session.device()), LaunchConfig.forThreads(N, 256), N, a, dx, dy);
		HostBuffer result = session.allocateHost(BYTES);
		session.copy(dy, result);
		return result;
	}

	private static float[] expected(float a) {
		float[] y = new float[N];
		for (int i = 0; i < N; i++) {
			// The PTX computes fma.rn.f32(x, a, y): one rounding, as Math.fma.
			y[i] = Math.fma(i, a, 1f);
		}
		return y;
	}

	private static float[] values(int salt) {
		float[] values = new float[N];
		for (int i = 0; i < N; i++) {
			values[i] = salt * 1_000_000 + i;
		}
		return values;
	}

	/**
	 * The backend behaviour suite on GPU 1 (GPU 0 runs it in
	 * {@link CudaSessionBehaviourGpuTests}).
	 */
	@Nested
	class SecondGpuBehaviourTests extends CudaSessionBehaviourGpuTests {

		@Override
		protected int deviceId() {
			return 1;
		}

	}

}
