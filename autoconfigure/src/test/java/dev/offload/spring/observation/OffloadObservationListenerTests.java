package dev.offload.spring.observation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.BackendException;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.blas.Blas;
import dev.offload.test.fault.FaultInjectingBackend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link OffloadObservationListener}.
 */
public class OffloadObservationListenerTests {

	private final RecordingHandler handler = new RecordingHandler();

	private final ObservationRegistry observations = ObservationRegistry.create();

	private final FaultInjectingBackend backend = FaultInjectingBackend
		.wrap(HostBackend.builder().workersPerDevice(2).build());

	private DeviceRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
	}

	@Test
	void sessionWhenClosedShouldBeObservedFromOpenToEnd() {
		start(null);
		OffloadSession session = this.registry.device(0).openSession(StreamPriority.HIGH);
		assertThat(this.handler.started).hasSize(1);
		assertThat(this.handler.stopped).isEmpty();
		assertThat(session.getAttribute(OffloadObservationListener.OBSERVATION_ATTRIBUTE))
			.isInstanceOf(Observation.class);
		session.streamId();
		session.close();
		assertThat(this.handler.stopped).hasSize(1);
		OffloadSessionObservationContext context = this.handler.stopped.get(0);
		assertThat(context.getName()).isEqualTo("offload.session");
		assertThat(context.getContextualName()).isEqualTo("offload session");
		assertThat(context.getSession()).isSameAs(session);
		assertThat(context.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("device", "0"),
				KeyValue.of("backend", "host"), KeyValue.of("priority", "high"));
		assertThat(context.getHighCardinalityKeyValues())
			.containsExactly(KeyValue.of("session", String.valueOf(session.id())));
		assertThat(context.getError()).isNull();
		assertThat(session.getAttribute(OffloadObservationListener.OBSERVATION_ATTRIBUTE)).isNull();
	}

	@Test
	void sessionWhenItCalledALibraryShouldCountTheCalls() {
		start(null);
		OffloadSession session = this.registry.device(0).openSession();
		DeviceBuffer x = session.allocate(4 * Float.BYTES);
		DeviceBuffer y = session.allocate(4 * Float.BYTES);
		Blas.on(session).saxpy(4, 2f, x, 1, y, 1);
		session.close();
		assertThat(this.handler.stopped).hasSize(1);
		assertThat(this.handler.stopped.get(0).getHighCardinalityKeyValues())
			.containsExactly(KeyValue.of("library.calls", "1"), KeyValue.of("session", String.valueOf(session.id())));
		// A meter handler names its counter after the observation and the event:
		// offload.session.library.blas.saxpy, not offload.session.offload.library...
		assertThat(this.handler.events).singleElement().satisfies((event) -> {
			assertThat(event.getName()).isEqualTo("library.blas.saxpy");
			assertThat(event.getContextualName()).isEqualTo("offload.library.blas.saxpy");
		});
	}

	@Test
	void sessionWhenWorkFailsShouldRecordTheError() {
		start(null);
		OffloadSession session = this.registry.openSession(0);
		var buffer = session.allocate(16);
		session.streamId();
		this.backend.failDevice(0, "injected for a test");
		assertThatExceptionOfType(BackendException.class).isThrownBy(() -> session.fill(buffer, (byte) 1));
		session.close();
		assertThat(this.handler.errors).hasSize(1);
		assertThat(this.handler.stopped.get(0).getError()).isInstanceOf(BackendException.class)
			.hasMessageContaining("injected for a test");
	}

	@Test
	void sessionWhenOpenedInsideAnObservationShouldBeItsChild() {
		start(null);
		Observation request = Observation.start("request", this.observations);
		try (Observation.Scope scope = request.openScope()) {
			this.registry.openSession(0).close();
		}
		request.stop();
		assertThat(this.handler.stopped.get(0).getParentObservation()).isSameAs(request);
	}

	@Test
	void sessionWhenConventionGivenShouldUseIt() {
		start(new DefaultOffloadSessionObservationConvention() {

			@Override
			public String getName() {
				return "gpu.work";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(OffloadSessionObservationContext context) {
				return super.getLowCardinalityKeyValues(context).and("team", "vision");
			}

		});
		this.registry.openSession(0).close();
		assertThat(this.handler.stopped.get(0).getName()).isEqualTo("gpu.work");
		assertThat(this.handler.stopped.get(0).getLowCardinalityKeyValues()).contains(KeyValue.of("team", "vision"));
	}

	@Test
	void sessionWhenRegistryIsNoopShouldNotBeObserved() {
		this.registry = DeviceRegistry.builder(this.backend)
			.listener(new OffloadObservationListener(ObservationRegistry.NOOP, null))
			.build();
		try (OffloadSession session = this.registry.openSession(0)) {
			assertThat(session.getAttribute(OffloadObservationListener.OBSERVATION_ATTRIBUTE)).isNull();
		}
	}

	private void start(OffloadSessionObservationConvention convention) {
		this.observations.observationConfig().observationHandler(this.handler);
		this.registry = DeviceRegistry.builder(this.backend)
			.listener(new OffloadObservationListener(this.observations, convention))
			.build();
	}

	/**
	 * Records the session contexts it sees.
	 */
	public static final class RecordingHandler implements ObservationHandler<OffloadSessionObservationContext> {

		public final List<OffloadSessionObservationContext> started = new CopyOnWriteArrayList<>();

		public final List<OffloadSessionObservationContext> stopped = new CopyOnWriteArrayList<>();

		public final List<Throwable> errors = new CopyOnWriteArrayList<>();

		public final List<Observation.Event> events = new CopyOnWriteArrayList<>();

		@Override
		public void onEvent(Observation.Event event, OffloadSessionObservationContext context) {
			this.events.add(event);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof OffloadSessionObservationContext;
		}

		@Override
		public void onStart(OffloadSessionObservationContext context) {
			this.started.add(context);
		}

		@Override
		public void onError(OffloadSessionObservationContext context) {
			this.errors.add(context.getError());
		}

		@Override
		public void onStop(OffloadSessionObservationContext context) {
			this.stopped.add(context);
		}

	}

}
