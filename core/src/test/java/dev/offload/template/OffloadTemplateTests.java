package dev.offload.template;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.NoSuchDeviceException;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPoolStatistics;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link OffloadTemplate#execute}: joining, opening, exceptions, devices and the helpers.
 */
class OffloadTemplateTests {

	private DeviceRegistry registry;

	private OffloadTemplate template;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(3).workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.build();
		this.template = new OffloadTemplate(this.registry);
	}

	@AfterEach
	void tearDown() {
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		for (Device device : this.registry.devices()) {
			StreamPoolStatistics stats = device.streamPool().statistics();
			assertThat(stats.inUse()).isZero();
			assertThat(stats.created() - stats.destroyed()).isEqualTo(stats.idle());
			assertThat(device.activeSessions()).isZero();
		}
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void executeWhenNoSessionBoundShouldOpenOneBindItAndCloseIt() {
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		String result = this.template.execute((session) -> {
			used.set(session);
			assertThat(this.template.currentSession()).containsSame(session);
			session.streamId();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(used.get().isClosed()).isTrue();
	}

	@Test
	void executeWhenSessionBoundShouldJoinItAndLeaveItOpen() throws Throwable {
		new OffloadInvoker(this.registry).invoke(OffloadAttributes.DEFAULTS, () -> {
			OffloadSession outer = this.template.currentSession().orElseThrow();
			int outerStream = outer.streamId();
			OffloadSession inner = this.template.execute((session) -> session);
			assertThat(inner).isSameAs(outer);
			int innerStream = this.template.execute(OffloadSession::streamId);
			assertThat(innerStream).isEqualTo(outerStream);
			assertThat(outer.isClosed()).isFalse();
			return null;
		});
	}

	@Test
	void executeInsideExecuteShouldJoinTheOuterCallbacksSession() {
		this.template.execute((outer) -> {
			int outerStream = outer.streamId();
			this.template.execute((inner) -> {
				assertThat(inner).isSameAs(outer);
				assertThat(inner.streamId()).isEqualTo(outerStream);
				return null;
			});
			assertThat(outer.isClosed()).isFalse();
			return null;
		});
	}

	@Test
	void executeWhenJoiningShouldWaitForTheCallbacksWork() {
		this.template.execute((outer) -> {
			DeviceBuffer in = Flow.of(outer).upload(new float[] { 1, 2, 3 });
			DeviceBuffer out = outer.allocate(12);
			var host = outer.allocateHost(12);
			this.template.execute((inner) -> {
				inner.launch(TemplateTestKernels.SCALE, LaunchConfig.of(1, 3), 3, 10f, in, out);
				inner.copy(out, host);
				return null;
			});
			// No synchronize here: execute returned after the joined work was done.
			assertThat(host.getFloats(0, new float[3])).containsExactly(10, 20, 30);
			return null;
		});
	}

	@Test
	void executeWhenCallbackThrowsShouldPropagateTheSameExceptionAndReleaseTheStream() {
		IllegalStateException failure = new IllegalStateException("callback failed");
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.template.execute((session) -> {
			used.set(session);
			session.fill(session.allocate(64), (byte) 1);
			throw failure;
		})).isSameAs(failure);
		assertThat(used.get().isClosed()).isTrue();
		assertThat(used.get().device().streamPool().statistics().discarded()).isZero();
	}

	@Test
	void executeWhenWorkFailsShouldThrowTheBackendErrorAndDiscardTheStream() {
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> this.template.execute((session) -> {
			used.set(session);
			session.launch(TemplateTestKernels.FAIL, LaunchConfig.of(1, 1), 5);
			return null;
		})).withMessageContaining("kernel failed on purpose 5");
		assertThat(used.get().device().streamPool().statistics().discarded()).isEqualTo(1);
	}

	@Test
	void executeWhenCallbackThrowsAfterFailedWorkShouldKeepItsExceptionAndSuppressTheWorkFailure() {
		IllegalStateException failure = new IllegalStateException("callback failed");
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.template.execute((session) -> {
			used.set(session);
			session.launch(TemplateTestKernels.FAIL, LaunchConfig.of(1, 1), 6);
			throw failure;
		}))
			.isSameAs(failure)
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(BackendException.class));
		assertThat(used.get().device().streamPool().statistics().discarded()).isEqualTo(1);
	}

	@Test
	void executeWhenNestedCallbackThrowsShouldLeaveTheOuterSessionBoundAndUsable() {
		this.template.execute((outer) -> {
			assertThatIllegalArgumentException().isThrownBy(() -> this.template.execute((inner) -> {
				throw new IllegalArgumentException("inner");
			}));
			assertThat(this.template.currentSession()).containsSame(outer);
			assertThat(outer.isClosed()).isFalse();
			outer.fill(outer.allocate(8), (byte) 0);
			return null;
		});
	}

	@Test
	void executeWithDeviceShouldUseThatDevice() {
		int deviceId = this.template.execute(2, (session) -> session.device().id());
		assertThat(deviceId).isEqualTo(2);
	}

	@Test
	void executeWithDeviceWhenBoundSessionIsOnAnotherDeviceShouldOpenOneThere() {
		this.template.execute(0, (outer) -> {
			OffloadSession inner = this.template.execute(1, (session) -> session);
			assertThat(inner).isNotSameAs(outer);
			assertThat(inner.device().id()).isEqualTo(1);
			assertThat(inner.isClosed()).isTrue();
			assertThat(this.template.currentSession()).containsSame(outer);
			return null;
		});
	}

	@Test
	void executeWithUnknownDeviceShouldThrowNamingTheDevices() {
		assertThatExceptionOfType(NoSuchDeviceException.class)
			.isThrownBy(() -> this.template.execute(7, (session) -> null))
			.withMessageContaining("7");
	}

	@Test
	void executeWithPriorityShouldOpenASessionOfThatPriority() {
		assertThat(this.template.execute(OffloadAttributes.DEFAULTS.withPriority(StreamPriority.HIGH),
				OffloadSession::priority))
			.isEqualTo(StreamPriority.HIGH);
	}

	@Test
	void executeWithPropagationThatMayRunWithoutSessionShouldThrow() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.template.execute(OffloadAttributes.DEFAULTS.withPropagation(Propagation.NEVER),
					(session) -> null))
			.withMessageContaining("propagation NEVER");
	}

	@Test
	void executeWithMandatoryWhenNoSessionBoundShouldThrow() {
		assertThatExceptionOfType(IllegalSessionStateException.class).isThrownBy(() -> this.template
			.execute(OffloadAttributes.DEFAULTS.withPropagation(Propagation.MANDATORY), (session) -> null));
	}

	@Test
	void flowShouldRoundTripEveryArrayType() {
		this.template.execute((session) -> {
			Flow flow = Flow.of(session);
			assertThat(flow.downloadDoubles(flow.upload(new double[] { 1.5, 2.5 }), 2)).containsExactly(1.5, 2.5);
			assertThat(flow.downloadFloats(flow.upload(new float[] { -1.5f }), 1)).containsExactly(-1.5f);
			assertThat(flow.downloadInts(flow.upload(new int[] { 7, -8, Integer.MAX_VALUE }), 3)).containsExactly(7, -8,
					Integer.MAX_VALUE);
			assertThat(flow.downloadLongs(flow.upload(new long[] { Long.MIN_VALUE, 9 }), 2))
				.containsExactly(Long.MIN_VALUE, 9);
			assertThat(flow.downloadBytes(flow.upload(new byte[] { -128, 0, 127 }), 3)).containsExactly(-128, 0, 127);
			assertThat(flow.downloadInts(flow.allocateInts(0), 0)).isEmpty();
			assertThat(flow.downloadFloats(flow.upload(new float[0]), 0)).isEmpty();
			return null;
		});
	}

}
