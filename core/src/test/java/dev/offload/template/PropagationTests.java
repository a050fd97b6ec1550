package dev.offload.template;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPoolConfig;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The propagation matrix: each {@link Propagation} with and without an outer session,
 * through {@link OffloadInvoker}.
 */
class PropagationTests {

	private DeviceRegistry registry;

	private OffloadInvoker invoker;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.build();
		this.invoker = new OffloadInvoker(this.registry);
	}

	@AfterEach
	void tearDown() {
		assertThat(OffloadSessionBinding.currentSession()).isEmpty();
		this.registry.devices().forEach((device) -> assertThat(device.streamPool().inUse()).isZero());
		this.registry.close(Duration.ofSeconds(5));
	}

	enum Outcome {

		JOINS, OPENS_NEW, RUNS_WITHOUT, THROWS

	}

	static Stream<Arguments> matrix() {
		return Stream.of(arguments(Propagation.REQUIRED, false, Outcome.OPENS_NEW),
				arguments(Propagation.REQUIRED, true, Outcome.JOINS),
				arguments(Propagation.REQUIRES_NEW, false, Outcome.OPENS_NEW),
				arguments(Propagation.REQUIRES_NEW, true, Outcome.OPENS_NEW),
				arguments(Propagation.MANDATORY, false, Outcome.THROWS),
				arguments(Propagation.MANDATORY, true, Outcome.JOINS),
				arguments(Propagation.SUPPORTS, false, Outcome.RUNS_WITHOUT),
				arguments(Propagation.SUPPORTS, true, Outcome.JOINS),
				arguments(Propagation.NOT_SUPPORTED, false, Outcome.RUNS_WITHOUT),
				arguments(Propagation.NOT_SUPPORTED, true, Outcome.RUNS_WITHOUT),
				arguments(Propagation.NEVER, false, Outcome.RUNS_WITHOUT),
				arguments(Propagation.NEVER, true, Outcome.THROWS));
	}

	@ParameterizedTest(name = "{0}, outer session {1}: {2}")
	@MethodSource("matrix")
	void propagationWhenOuterSessionPresentOrNotShouldUseTheExpectedSession(Propagation propagation, boolean withOuter,
			Outcome outcome) throws Throwable {
		if (withOuter) {
			this.invoker.invoke(OffloadAttributes.DEFAULTS, () -> {
				OffloadSession outer = OffloadSessionBinding.currentSession().orElseThrow();
				checkInner(propagation, outer, stream(outer), outcome);
				assertThat(OffloadSessionBinding.currentSession()).containsSame(outer);
				assertThat(outer.isClosed()).isFalse();
				return null;
			});
		}
		else {
			checkInner(propagation, null, "none", outcome);
		}
	}

	private void checkInner(Propagation propagation, OffloadSession outer, String outerStream, Outcome outcome)
			throws Throwable {
		AtomicReference<OffloadSession> used = new AtomicReference<>();
		List<String> streams = new ArrayList<>();
		OffloadInvoker.Invocation<String> call = () -> {
			OffloadSession session = OffloadSessionBinding.currentSession().orElse(null);
			used.set(session);
			if (session != null) {
				streams.add(stream(session));
			}
			return "done";
		};
		OffloadAttributes attributes = OffloadAttributes.DEFAULTS.withPropagation(propagation);
		if (outcome == Outcome.THROWS) {
			assertThatExceptionOfType(IllegalSessionStateException.class)
				.isThrownBy(() -> this.invoker.invoke(attributes, call))
				.withMessageContaining(propagation.name())
				.satisfies((ex) -> assertThat(ex.propagation()).isEqualTo(propagation));
			assertThat(used.get()).isNull();
			return;
		}
		assertThat(this.invoker.invoke(attributes, call)).isEqualTo("done");
		switch (outcome) {
			case JOINS -> {
				assertThat(used.get()).isSameAs(outer);
				assertThat(streams).containsExactly(outerStream);
			}
			case OPENS_NEW -> {
				assertThat(used.get()).isNotNull().isNotSameAs(outer);
				assertThat(used.get().id()).isNotEqualTo((outer != null) ? outer.id() : -1);
				assertThat(streams).hasSize(1).doesNotContain(outerStream);
				assertThat(used.get().isClosed()).isTrue();
			}
			case RUNS_WITHOUT -> assertThat(used.get()).isNull();
			default -> throw new IllegalStateException(outcome.name());
		}
	}

	@Test
	void nestedCallsShouldJoinOrOpenLevelByLevelAndRestoreEachLevel() throws Throwable {
		List<String> trace = new ArrayList<>();
		this.invoker.invoke(OffloadAttributes.DEFAULTS, () -> {
			OffloadSession level1 = current();
			trace.add("1:" + level1.id() + "/" + stream(level1));
			this.invoker.invoke(OffloadAttributes.DEFAULTS, () -> {
				assertThat(current()).isSameAs(level1);
				trace.add("2:" + current().id() + "/" + stream(current()));
				this.invoker.invoke(OffloadAttributes.DEFAULTS.withPropagation(Propagation.REQUIRES_NEW), () -> {
					OffloadSession level3 = current();
					assertThat(level3).isNotSameAs(level1);
					assertThat(stream(level3)).isNotEqualTo(stream(level1));
					trace.add("3:new");
					this.invoker.invoke(OffloadAttributes.DEFAULTS.withPropagation(Propagation.MANDATORY), () -> {
						assertThat(current()).isSameAs(level3);
						trace.add("4:joined 3");
						return null;
					});
					return null;
				});
				assertThat(current()).isSameAs(level1);
				this.invoker.invoke(OffloadAttributes.DEFAULTS.withPropagation(Propagation.NOT_SUPPORTED), () -> {
					assertThat(OffloadSessionBinding.currentSession()).isEmpty();
					trace.add("5:none");
					return null;
				});
				assertThat(current()).isSameAs(level1);
				return null;
			});
			return null;
		});
		assertThat(trace).hasSize(5);
		assertThat(trace.get(1)).isEqualTo(trace.get(0).replace("1:", "2:"));
	}

	@Test
	void requiredWhenBoundSessionIsOnAnotherDeviceShouldOpenOneOnTheAskedDevice() throws Throwable {
		this.invoker.invoke(OffloadAttributes.DEFAULTS.withDevice(0), () -> {
			OffloadSession outer = current();
			OffloadSession inner = this.invoker.invoke(OffloadAttributes.DEFAULTS.withDevice(1),
					PropagationTests::current);
			assertThat(inner).isNotSameAs(outer);
			assertThat(inner.device().id()).isEqualTo(1);
			assertThat(this.invoker.invoke(OffloadAttributes.DEFAULTS.withDevice(0), PropagationTests::current))
				.isSameAs(outer);
			return null;
		});
	}

	@Test
	void mandatoryWhenBoundSessionIsOnAnotherDeviceShouldThrowNamingIt() throws Throwable {
		this.invoker.invoke(OffloadAttributes.DEFAULTS.withDevice(0), () -> {
			assertThatExceptionOfType(IllegalSessionStateException.class)
				.isThrownBy(() -> this.invoker
					.invoke(new OffloadAttributes(1, Propagation.MANDATORY, StreamPriority.NORMAL), () -> null))
				.withMessageContaining("No session of device 1")
				.withMessageContaining("the bound session is OffloadSession[");
			return null;
		});
	}

	@Test
	void newSessionShouldHaveTheAskedPriority() throws Throwable {
		OffloadSession session = this.invoker.invoke(OffloadAttributes.DEFAULTS.withPriority(StreamPriority.HIGH),
				PropagationTests::current);
		assertThat(session.priority()).isEqualTo(StreamPriority.HIGH);
	}

	@Test
	void joinedSessionShouldKeepItsOwnPriority() throws Throwable {
		this.invoker.invoke(OffloadAttributes.DEFAULTS, () -> {
			OffloadSession joined = this.invoker.invoke(OffloadAttributes.DEFAULTS.withPriority(StreamPriority.HIGH),
					PropagationTests::current);
			assertThat(joined.priority()).isEqualTo(StreamPriority.NORMAL);
			return null;
		});
	}

	@Test
	void sessionOfAnotherRegistryShouldNotBeJoined() throws Throwable {
		try (DeviceRegistry other = DeviceRegistry.builder(HostBackend.builder().build()).build()) {
			OffloadInvoker otherInvoker = new OffloadInvoker(other);
			otherInvoker.invoke(OffloadAttributes.DEFAULTS, () -> {
				OffloadSession foreign = current();
				assertThat(this.invoker.currentSession()).isEmpty();
				OffloadSession mine = this.invoker.invoke(OffloadAttributes.DEFAULTS, PropagationTests::current);
				assertThat(mine).isNotSameAs(foreign);
				assertThat(this.registry.devices()).contains(mine.device());
				assertThat(current()).isSameAs(foreign);
				return null;
			});
		}
	}

	/**
	 * Names a session's stream: stream ids are unique within a device's pool.
	 */
	private static String stream(OffloadSession session) {
		return "device" + session.device().id() + "-stream" + session.streamId();
	}

	private static OffloadSession current() {
		return OffloadSessionBinding.currentSession().orElseThrow();
	}

}
