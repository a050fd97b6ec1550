package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.offload.CapturedFlow;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link CapturedFlow} as a CUDA graph: capture runs nothing, a replay runs the captured
 * copies and launches on the data in the captured buffers, bit-identical to eager
 * launches, and replays that would be wrong are refused; the device destroys the graphs
 * still open when it closes.
 */
@GpuTests
class CudaCapturedFlowGpuTests {

	private static final KernelRef SAXPY = KernelRef.of(TestKernels.SAXPY, "saxpy");

	private static final int N = 1000;

	private static DeviceRegistry registry;

	private static Device device;

	@BeforeAll
	static void openRegistry() {
		registry = DeviceRegistry.builder(CudaTestBackends.create()).deviceIds(List.of(0)).build();
		device = registry.device(0);
		JCudaExceptionMode.configured().apply();
	}

	@AfterAll
	static void closeRegistry() {
		if (registry != null) {
			registry.close();
		}
	}

	private static float[] input(float offset) {
		float[] values = new float[N];
		for (int i = 0; i < N; i++) {
			values[i] = offset + i * 0.37f;
		}
		return values;
	}

	/** y = 0; y += 1.5x, {@code launches} times; output = y. */
	private static CapturedFlow capture(OffloadSession session, Buffers buffers, int launches) {
		return CapturedFlow.capture(session, (steps) -> {
			steps.copy(buffers.input, buffers.x);
			steps.fill(buffers.y, (byte) 0);
			for (int i = 0; i < launches; i++) {
				steps.launch(SAXPY, LaunchConfig.forThreads(N, 256), N, 1.5f, buffers.x, buffers.y);
			}
			steps.copy(buffers.y, buffers.output);
		});
	}

	@Test
	void replayWhenCapturedShouldMatchEagerLaunchesBitForBit() {
		try (Buffers buffers = new Buffers(); OffloadSession session = device.openSession()) {
			buffers.input.putFloats(0, input(1));
			session.copy(buffers.input, buffers.x);
			session.fill(buffers.y, (byte) 0);
			for (int i = 0; i < 16; i++) {
				session.launch(SAXPY, LaunchConfig.forThreads(N, 256), N, 1.5f, buffers.x, buffers.y);
			}
			session.copy(buffers.y, buffers.output);
			session.synchronize();
			float[] eager = buffers.output.getFloats(0, new float[N]);
			buffers.output.putFloats(0, new float[N]);
			CapturedFlow flow = capture(session, buffers, 16);
			session.synchronize();
			assertThat(buffers.output.getFloats(0, new float[N])).as("capture runs nothing").containsOnly(0f);
			flow.replay(session);
			session.synchronize();
			assertThat(buffers.output.getFloats(0, new float[N])).containsExactly(eager);
			// New data in the captured host buffer: the next replay reads it.
			buffers.input.putFloats(0, input(5));
			flow.replay(session, buffers.input, buffers.output);
			session.synchronize();
			assertThat(buffers.output.getFloats(0, new float[N])[10]).isEqualTo(eagerValue(input(5)[10], 16));
			flow.close();
			assertThat(device.capturedFlows()).isZero();
		}
	}

	private static float eagerValue(float x, int launches) {
		float y = 0;
		for (int i = 0; i < launches; i++) {
			y = 1.5f * x + y;
		}
		return y;
	}

	@Test
	void replayWhenManyTimesInOneSessionShouldRunEachInOrder() {
		try (Buffers buffers = new Buffers(); OffloadSession session = device.openSession()) {
			buffers.input.putFloats(0, input(2));
			try (CapturedFlow flow = capture(session, buffers, 4)) {
				for (int i = 0; i < 100; i++) {
					flow.replay(session);
				}
				session.synchronize();
			}
			assertThat(buffers.output.getFloats(0, new float[N])[7]).isEqualTo(eagerValue(input(2)[7], 4));
		}
	}

	@Test
	void replayWithABufferThatWasNotCapturedShouldBeRefused() {
		try (Buffers buffers = new Buffers();
				DeviceBuffer other = device.allocate(N * Float.BYTES);
				OffloadSession session = device.openSession();
				CapturedFlow flow = capture(session, buffers, 1)) {
			assertThatIllegalArgumentException().isThrownBy(() -> flow.replay(session, other))
				.withMessageContaining("was not captured by this flow");
		}
	}

	@Test
	void replayAfterACapturedBufferWasClosedShouldBeRefused() {
		try (Buffers buffers = new Buffers();
				OffloadSession session = device.openSession();
				CapturedFlow flow = capture(session, buffers, 1)) {
			buffers.y.close();
			assertThatIllegalStateException().isThrownBy(() -> flow.replay(session))
				.withMessageContaining("captured by this flow was closed");
		}
	}

	@Test
	void shutdownShouldDestroyTheFlowsStillOpen() {
		DeviceRegistry own = DeviceRegistry.builder(CudaTestBackends.create()).deviceIds(List.of(0)).build();
		Device ownDevice = own.device(0);
		HostBuffer input = ownDevice.allocateHost(N * Float.BYTES);
		DeviceBuffer x = ownDevice.allocate(N * Float.BYTES);
		CapturedFlow flow;
		try (OffloadSession session = ownDevice.openSession()) {
			flow = CapturedFlow.capture(session, (steps) -> steps.copy(input, x));
		}
		assertThat(ownDevice.capturedFlows()).isOne();
		// The application's buffers closed, the flow left open: shutdown destroys it.
		input.close();
		x.close();
		assertThat(own.close(Duration.ofSeconds(30))).isTrue();
		assertThat(flow.isClosed()).isTrue();
		assertThat(ownDevice.capturedFlows()).isZero();
	}

	/** Buffers the test owns: a captured flow refuses a session's. */
	private static final class Buffers implements AutoCloseable {

		final HostBuffer input = device.allocateHost(N * Float.BYTES);

		final DeviceBuffer x = device.allocate(N * Float.BYTES);

		final DeviceBuffer y = device.allocate(N * Float.BYTES);

		final HostBuffer output = device.allocateHost(N * Float.BYTES);

		@Override
		public void close() {
			this.input.close();
			this.x.close();
			this.y.close();
			this.output.close();
		}

	}

}
