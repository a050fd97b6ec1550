package dev.offload;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link CapturedFlow} on the host backend: capture runs nothing, a replay runs the
 * captured steps in order on the data in the captured buffers, and replays that would be
 * wrong are refused.
 */
class CapturedFlowTests {

	private static final KernelRef SAXPY = KernelRef.of(TestKernels.MODULE, "saxpy");

	private static final int N = 300;

	private DeviceRegistry registry;

	private Device device;

	private HostBuffer input;

	private DeviceBuffer x;

	private DeviceBuffer y;

	private HostBuffer output;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
			.build();
		this.device = this.registry.device(0);
		this.input = this.device.allocateHost(N * Float.BYTES);
		this.x = this.device.allocate(N * Float.BYTES);
		this.y = this.device.allocate(N * Float.BYTES);
		this.output = this.device.allocateHost(N * Float.BYTES);
	}

	@AfterEach
	void tearDown() {
		closeBuffers();
		this.registry.close(Duration.ofSeconds(5));
	}

	/** Closes the application's buffers: shutdown keeps page-locked memory still open. */
	private void closeBuffers() {
		this.input.close();
		this.x.close();
		this.y.close();
		this.output.close();
	}

	/** y = 0; y += 2x, {@code launches} times; out = y. */
	private CapturedFlow capture(OffloadSession session, int launches) {
		return CapturedFlow.capture(session, (steps) -> {
			steps.copy(this.input, this.x);
			steps.fill(this.y, (byte) 0);
			for (int i = 0; i < launches; i++) {
				steps.launch(SAXPY, LaunchConfig.forThreads(N, 128), N, 2f, this.x, this.y);
			}
			steps.copy(this.y, this.output);
		});
	}

	private void write(float value) {
		float[] values = new float[N];
		for (int i = 0; i < N; i++) {
			values[i] = value + i;
		}
		this.input.putFloats(0, values);
	}

	@Test
	void captureShouldRunNothingAndReplayShouldRunTheStepsOnTheCurrentData() {
		write(1);
		try (OffloadSession session = this.device.openSession()) {
			CapturedFlow flow = capture(session, 16);
			session.synchronize();
			assertThat(this.output.getFloats(0, new float[N])).containsOnly(0f);
			flow.replay(session);
			session.synchronize();
			assertThat(this.output.getFloats(0, new float[N])[5]).isEqualTo(16 * 2 * 6f);
			write(10);
			flow.replay(session, this.input, this.output);
			session.synchronize();
			assertThat(this.output.getFloats(0, new float[N])[5]).isEqualTo(16 * 2 * 15f);
			assertThat(flow.steps()).isEqualTo(19);
			assertThat(flow.buffers()).containsExactlyInAnyOrder(this.input, this.x, this.y, this.output);
		}
	}

	@Test
	void replayShouldGiveTheSameResultsAsEagerLaunches() {
		write(3);
		float[] eager;
		try (OffloadSession session = this.device.openSession()) {
			session.copy(this.input, this.x);
			session.fill(this.y, (byte) 0);
			for (int i = 0; i < 16; i++) {
				session.launch(SAXPY, LaunchConfig.forThreads(N, 128), N, 2f, this.x, this.y);
			}
			session.copy(this.y, this.output);
			session.synchronize();
			eager = this.output.getFloats(0, new float[N]);
			this.output.putFloats(0, new float[N]);
			capture(session, 16).replay(session);
			session.synchronize();
		}
		assertThat(this.output.getFloats(0, new float[N])).containsExactly(eager);
	}

	@Test
	void replayWithABufferThatWasNotCapturedShouldBeRefused() {
		DeviceBuffer other = this.device.allocate(N * Float.BYTES);
		try (OffloadSession session = this.device.openSession()) {
			CapturedFlow flow = capture(session, 2);
			assertThatIllegalArgumentException().isThrownBy(() -> flow.replay(session, other))
				.withMessageContaining("was not captured by this flow");
		}
	}

	@Test
	void replayAfterACapturedBufferWasClosedShouldBeRefused() {
		try (OffloadSession session = this.device.openSession()) {
			CapturedFlow flow = capture(session, 2);
			this.y.close();
			assertThatIllegalStateException().isThrownBy(() -> flow.replay(session))
				.withMessageContaining("captured by this flow was closed");
		}
	}

	@Test
	void replayOnAnotherDeviceShouldBeRefused() {
		CapturedFlow flow;
		try (OffloadSession session = this.device.openSession()) {
			flow = capture(session, 1);
		}
		try (OffloadSession other = this.registry.device(1).openSession()) {
			assertThatIllegalArgumentException().isThrownBy(() -> flow.replay(other))
				.withMessageContaining("captured on device 0");
		}
	}

	@Test
	void captureWithABufferOfTheSessionShouldBeRefused() {
		try (OffloadSession session = this.device.openSession()) {
			DeviceBuffer own = session.allocate(N * Float.BYTES);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> CapturedFlow.capture(session, (steps) -> steps.copy(this.input, own)))
				.withMessageContaining("belongs to a session");
		}
	}

	@Test
	void captureWithAStepOutsideItsBufferShouldBeRefusedBeforeCapturing() {
		try (OffloadSession session = this.device.openSession()) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> CapturedFlow.capture(session,
						(steps) -> steps.copy(this.input, 0, this.x, 8, N * Float.BYTES)))
				.withMessageContaining("outside");
			assertThat(this.device.capturedFlows()).isZero();
		}
	}

	@Test
	void closedFlowShouldBeRefusedAndShutdownShouldDestroyTheOpenOnes() {
		CapturedFlow open;
		try (OffloadSession session = this.device.openSession()) {
			CapturedFlow closed = capture(session, 1);
			open = capture(session, 1);
			closed.close();
			assertThat(this.device.capturedFlows()).isOne();
			assertThatIllegalStateException().isThrownBy(() -> closed.replay(session)).withMessageContaining("closed");
		}
		closeBuffers();
		assertThat(this.registry.close(Duration.ofSeconds(5))).isTrue();
		assertThat(open.isClosed()).isTrue();
		assertThat(this.device.capturedFlows()).isZero();
	}

}
