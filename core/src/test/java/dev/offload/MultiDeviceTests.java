package dev.offload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * One registry over three emulated devices: one pool each, a thread switching devices,
 * least-busy placement, a failure confined to its device, and work that crosses devices
 * (events and copies).
 */
class MultiDeviceTests {

	private static final int DEVICES = 3;

	private static final int N = 1024;

	/**
	 * Gate ids apart from the other suites', which share {@link TestKernels}' latches.
	 */
	private static final AtomicInteger gateIds = new AtomicInteger(30_000);

	private HostBackend backend;

	private DeviceRegistry registry;

	@BeforeEach
	void openRegistry() {
		this.backend = HostBackend.builder().deviceCount(DEVICES).workersPerDevice(2).build();
		this.registry = DeviceRegistry.builder(this.backend)
			.streamPool(StreamPoolConfig.DEFAULTS.withInitialSize(4))
			.build();
	}

	@AfterEach
	void closeRegistry() {
		this.registry.close(Duration.ofSeconds(30));
	}

	@Test
	void buildWhenBackendHasThreeDevicesShouldGiveEachItsOwnStreamPool() {
		assertThat(this.registry.ids()).containsExactly(0, 1, 2);
		List<StreamPool> pools = this.registry.devices().stream().map(Device::streamPool).toList();
		assertThat(pools).doesNotHaveDuplicates();
		assertThat(pools).extracting((pool) -> pool.device().id()).containsExactly(0, 1, 2);
		StreamPools byId = new StreamPools(this.registry);
		assertThat(byId.ids()).containsExactly(0, 1, 2);
		for (int id = 0; id < DEVICES; id++) {
			assertThat(byId.get(id)).isSameAs(this.registry.device(id).streamPool());
			try (OffloadSession session = this.registry.openSession(id)) {
				session.streamId();
				assertThat(session.device().id()).isEqualTo(id);
				assertThat(this.registry.device(id).streamPool().inUse()).isEqualTo(1);
			}
		}
	}

	@Test
	void sessionsWhenOneThreadAlternatesBetweenDevicesShouldComputeEachResultOnItsDevice() {
		int[] order = { 0, 1, 0, 2, 1, 0, 2, 2, 1, 0, 1, 2 };
		for (int round = 0; round < 5; round++) {
			for (int i = 0; i < order.length; i++) {
				float a = round * 100 + i + 1;
				try (OffloadSession session = this.registry.openSession(order[i])) {
					assertThat(saxpy(session, a)).as("round %d, device %d", round, order[i]).isEqualTo(expected(a));
					assertThat(session.device().id()).isEqualTo(order[i]);
				}
			}
		}
	}

	@Test
	void sessionsWhenOpenAtOnceOnEveryDeviceAndInterleavedShouldKeepTheirOwnResults() {
		List<OffloadSession> sessions = new ArrayList<>();
		List<HostBuffer> results = new ArrayList<>();
		try {
			for (int round = 0; round < 2; round++) {
				for (int id = 0; id < DEVICES; id++) {
					OffloadSession session = this.registry.openSession(id);
					sessions.add(session);
					results.add(enqueueSaxpy(session, sessions.size()));
				}
			}
			for (int i = sessions.size() - 1; i >= 0; i--) {
				sessions.get(i).synchronize();
				assertThat(results.get(i).getFloats(0, new float[N])).isEqualTo(expected(i + 1));
			}
		}
		finally {
			sessions.forEach(OffloadSession::close);
		}
	}

	@Test
	void templateWhenCallsNestOnDifferentDevicesShouldRunEachOnItsDeviceAndRestoreTheOuterSession() {
		OffloadTemplate template = new OffloadTemplate(this.registry);
		float[] inner = template.execute(0, (outer) -> {
			assertThat(saxpy(outer, 2)).isEqualTo(expected(2));
			float[] onOne = template.execute(1, (session) -> {
				assertThat(session.device().id()).isEqualTo(1);
				assertThat(session).isNotSameAs(outer);
				float[] onTwo = template.execute(2, (deepest) -> {
					assertThat(deepest.device().id()).isEqualTo(2);
					return saxpy(deepest, 4);
				});
				assertThat(onTwo).isEqualTo(expected(4));
				assertThat(template.currentSession()).containsSame(session);
				return saxpy(session, 3);
			});
			assertThat(template.currentSession()).containsSame(outer);
			assertThat(saxpy(outer, 5)).isEqualTo(expected(5));
			return onOne;
		});
		assertThat(inner).isEqualTo(expected(3));
		assertThat(template.currentSession()).isEmpty();
	}

	@Test
	void openSessionWhenSessionsAreHeldShouldSpreadThemOverTheDevices() {
		List<OffloadSession> held = new ArrayList<>();
		try {
			for (int i = 0; i < 3 * DEVICES; i++) {
				held.add(this.registry.openSession());
			}
			assertThat(countByDevice(held)).containsExactlyInAnyOrderEntriesOf(Map.of(0, 3L, 1, 3L, 2, 3L));
			held.remove(4).close();
			held.add(this.registry.openSession());
			assertThat(held.get(held.size() - 1).device().id()).as("the device a session just left").isEqualTo(1);
		}
		finally {
			held.forEach(OffloadSession::close);
		}
	}

	@Test
	void openSessionWhenOneDeviceFailedShouldSkipIt() {
		failWithIllegalAddress(1);
		List<OffloadSession> held = new ArrayList<>();
		try {
			for (int i = 0; i < 4; i++) {
				held.add(this.registry.openSession());
			}
			assertThat(countByDevice(held)).containsExactlyInAnyOrderEntriesOf(Map.of(0, 2L, 2, 2L));
		}
		finally {
			held.forEach(OffloadSession::close);
		}
	}

	@Test
	void leastBusyOfOneDeviceShouldBeItWhileHealthyAndFailOnceItFailed() {
		this.registry.close(Duration.ofSeconds(30));
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
			.deviceIds(List.of(1))
			.build();
		Device only = this.registry.device(1);
		assertThat(this.registry.leastBusy()).isSameAs(only);
		failWithIllegalAddress(1);
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(this.registry::leastBusy)
			.withMessageContaining("Device 1 has failed");
		assertThatExceptionOfType(DeviceFailedException.class)
			.isThrownBy(() -> this.registry.openSession(SessionOptions.DEFAULTS));
	}

	@Test
	void stickyErrorWhenOneDeviceFailsShouldFailThatDeviceOnlyAndTheOthersKeepServing() {
		failWithIllegalAddress(1);
		Device failed = this.registry.device(1);
		assertThat(failed.isHealthy()).isFalse();
		assertThat(failed.failure()).get()
			.isInstanceOfSatisfying(BackendException.class, (error) -> assertThat(error.isSticky()).isTrue());
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(() -> this.registry.openSession(1))
			.withMessageContaining("Device 1 has failed");
		for (int id : List.of(0, 2)) {
			assertThat(this.registry.device(id).isHealthy()).isTrue();
			try (OffloadSession session = this.registry.openSession(id)) {
				assertThat(saxpy(session, 7 + id)).isEqualTo(expected(7 + id));
			}
		}
		assertThat(this.registry.leastBusy().id()).isNotEqualTo(1);
	}

	@Test
	void openSessionWhenEveryDeviceFailedShouldThrowDeviceFailed() {
		for (int id = 0; id < DEVICES; id++) {
			failWithIllegalAddress(id);
		}
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(this.registry::openSession);
	}

	@Test
	void waitForWhenEventRecordedOnAnotherDeviceShouldHoldTheWaitingStreamUntilThen() {
		Device first = this.registry.device(0);
		Device second = this.registry.device(1);
		int gate = gateIds.incrementAndGet();
		try (OffloadSession producer = first.openSession(); OffloadSession consumer = second.openSession()) {
			producer.launch(first.loadModule(TestKernels.MODULE).kernel("hold"), LaunchConfig.of(1, 1), gate);
			TestKernels.await(TestKernels.started(gate));
			StreamEvent produced = producer.recordEvent();
			consumer.waitFor(produced);
			HostBuffer result = enqueueSaxpy(consumer, 6);
			StreamEvent consumed = consumer.recordEvent();
			assertThat(produced.isComplete()).isFalse();
			assertThat(consumed.isComplete()).as("device 1's work behind device 0's held kernel").isFalse();
			TestKernels.gate(gate).countDown();
			consumer.synchronize();
			assertThat(produced.isComplete()).isTrue();
			assertThat(result.getFloats(0, new float[N])).isEqualTo(expected(6));
		}
	}

	@Test
	void copyWhenSourceIsOnAnotherDeviceShouldStageItAndCopyTheValues() {
		float[] values = values(3);
		try (DeviceBuffer onFirst = this.registry.device(0).allocate((long) N * Float.BYTES)) {
			try (OffloadSession writer = this.registry.openSession(0)) {
				writer.copy(writer.hostBuffer(values), onFirst);
			}
			try (OffloadSession reader = this.registry.openSession(2)) {
				DeviceBuffer onThird = reader.allocate((long) N * Float.BYTES);
				HostBuffer back = reader.allocateHost((long) N * Float.BYTES);
				reader.copy(onFirst, onThird);
				reader.copy(onThird, back);
				reader.synchronize();
				assertThat(back.getFloats(0, new float[N])).isEqualTo(values);
				// The staging went back with the synchronize: a session kept for many
				// copies holds none of the ones before.
				assertThat(this.registry.device(0).memoryStatistics().hostUsedBytes()).isZero();
				HostBuffer part = reader.allocateHost(8L * Float.BYTES);
				reader.copy(onFirst, 16L * Float.BYTES, part, 0, 8L * Float.BYTES);
				reader.synchronize();
				float[] expectedPart = new float[8];
				System.arraycopy(values, 16, expectedPart, 0, 8);
				assertThat(part.getFloats(0, new float[8])).isEqualTo(expectedPart);
			}
			assertThat(this.registry.device(0).streamPool().inUse()).isZero();
		}
	}

	@Test
	void copyWhenSourceOnAnotherDeviceIsWrittenBehindAnEventShouldCopyWhatTheEventCovers() throws Exception {
		Device first = this.registry.device(0);
		int gate = gateIds.incrementAndGet();
		try (DeviceBuffer onFirst = first.allocate((long) N * Float.BYTES);
				OffloadSession writer = first.openSession();
				OffloadSession reader = this.registry.openSession(1)) {
			writer.fill(onFirst, (byte) 0);
			writer.launch(first.loadModule(TestKernels.MODULE).kernel("hold"), LaunchConfig.of(1, 1), gate);
			TestKernels.await(TestKernels.started(gate));
			writer.copy(writer.hostBuffer(values(9)), onFirst);
			StreamEvent written = writer.recordEvent();
			HostBuffer back = reader.allocateHost((long) N * Float.BYTES);
			reader.waitFor(written);
			// The copy waits for the session's work (the event) on the calling thread:
			// copy from another thread while the gate holds.
			CompletableFuture<Void> copied = CompletableFuture.runAsync(() -> {
				reader.copy(onFirst, back);
				reader.synchronize();
			});
			// Release the gate only once the copying thread waits for its session's work
			// (for the event, or, had the staging not waited for it, in the synchronize
			// after it), so that a staging that did not wait would read the buffer before
			// it was written.
			await().atMost(Duration.ofSeconds(60)).until(reader::isAwaitingWork);
			TestKernels.gate(gate).countDown();
			copied.get(60, TimeUnit.SECONDS);
			assertThat(back.getFloats(0, new float[N])).isEqualTo(values(9));
		}
	}

	@Test
	void copiesWhenTwoFullPoolsCopyFromEachOtherShouldNotWaitForEachOthersStreams() throws Exception {
		HostBackend two = HostBackend.builder().deviceCount(2).workersPerDevice(2).build();
		// One stream a device: a session holding it fills its pool.
		StreamPoolConfig oneStream = StreamPoolConfig.DEFAULTS.withInitialSize(1)
			.withMaxSize(1)
			.withBorrowTimeout(Duration.ofSeconds(2));
		DeviceRegistry full = DeviceRegistry.builder(two).streamPool(oneStream).build();
		ExecutorService copiers = Executors.newFixedThreadPool(2);
		try (DeviceBuffer onFirst = full.device(0).allocate((long) N * Float.BYTES);
				DeviceBuffer onSecond = full.device(1).allocate((long) N * Float.BYTES)) {
			for (DeviceBuffer buffer : List.of(onFirst, onSecond)) {
				try (OffloadSession writer = buffer.device().openSession()) {
					writer.copy(writer.hostBuffer(values(buffer.device().id() + 1)), buffer);
				}
			}
			CyclicBarrier bothHold = new CyclicBarrier(2);
			// A thread each, whatever else the common pool runs: both must hold at once.
			CompletableFuture<float[]> intoFirst = CompletableFuture
				.supplyAsync(() -> copyHoldingTheStream(full.device(0), onSecond, bothHold), copiers);
			CompletableFuture<float[]> intoSecond = CompletableFuture
				.supplyAsync(() -> copyHoldingTheStream(full.device(1), onFirst, bothHold), copiers);
			assertThat(intoFirst.get(60, TimeUnit.SECONDS)).isEqualTo(values(2));
			assertThat(intoSecond.get(60, TimeUnit.SECONDS)).isEqualTo(values(1));
			assertThat(full.device(0).streamPool().statistics().borrows()).isEqualTo(2);
		}
		finally {
			copiers.shutdownNow();
			full.close(Duration.ofSeconds(30));
		}
	}

	@Test
	void closeOfTheSourceDeviceWhileACopyFromItWaitsForItsSessionsWorkShouldNotWaitForThatWork() throws Exception {
		HostBackend two = HostBackend.builder().deviceCount(2).workersPerDevice(2).build();
		DeviceRegistry own = DeviceRegistry.builder(two).build();
		Device first = own.device(0);
		Device second = own.device(1);
		int gate = gateIds.incrementAndGet();
		try (DeviceBuffer onFirst = first.allocate((long) N * Float.BYTES);
				OffloadSession reader = second.openSession()) {
			HostBuffer back = reader.allocateHost((long) N * Float.BYTES);
			reader.launch(second.loadModule(TestKernels.MODULE).kernel("hold"), LaunchConfig.of(1, 1), gate);
			CompletableFuture<Void> copied = CompletableFuture.runAsync(() -> reader.copy(onFirst, back));
			await().atMost(Duration.ofSeconds(60)).until(reader::isAwaitingWork);
			// The copy waits for the held kernel on device 1: device 0 has nothing of its
			// own to wait for.
			assertThat(first.close(Duration.ofSeconds(30))).isTrue();
			TestKernels.gate(gate).countDown();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> copied.get(60, TimeUnit.SECONDS))
				.withCauseInstanceOf(StreamPoolClosedException.class);
		}
		finally {
			TestKernels.gate(gate).countDown();
			own.close(Duration.ofSeconds(30));
		}
	}

	/**
	 * In a session of {@code device} that holds its stream (its pool's only one) while
	 * the other thread's session holds the other device's, copies {@code source} in and
	 * reads it back.
	 */
	private static float[] copyHoldingTheStream(Device device, DeviceBuffer source, CyclicBarrier bothHold) {
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer copy = session.allocate(source.size());
			HostBuffer back = session.allocateHost(source.size());
			session.fill(copy, (byte) 0);
			bothHold.await(60, TimeUnit.SECONDS);
			session.copy(source, copy);
			session.copy(copy, back);
			session.synchronize();
			return back.getFloats(0, new float[N]);
		}
		catch (InterruptedException | BrokenBarrierException | TimeoutException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void copyWhenSourceIsOnAnotherDeviceAndRangeIsOutsideShouldThrowBeforeStaging() {
		try (DeviceBuffer onFirst = this.registry.device(0).allocate(64);
				DeviceBuffer onSecond = this.registry.device(1).allocate(64);
				OffloadSession reader = this.registry.openSession(1)) {
			assertThatIllegalArgumentException().isThrownBy(() -> reader.copy(onFirst, 32, onSecond, 0, 64))
				.withMessageContaining("the copy's source");
			assertThat(reader.hasStream()).isFalse();
			assertThat(this.registry.device(0).activeSessions()).isZero();
		}
	}

	@Test
	void copyWhenSourceDeviceHasFailedShouldThrowDeviceFailedAndLeaveTheSessionUsable() {
		try (DeviceBuffer onFirst = this.registry.device(0).allocate((long) N * Float.BYTES)) {
			failWithIllegalAddress(0);
			try (OffloadSession reader = this.registry.openSession(1)) {
				DeviceBuffer onSecond = reader.allocate((long) N * Float.BYTES);
				assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(() -> reader.copy(onFirst, onSecond))
					.withMessageContaining("Device 0 has failed");
				assertThat(saxpy(reader, 2)).isEqualTo(expected(2));
			}
		}
	}

	@Test
	void copyWhenDestinationIsOnAnotherDeviceShouldThrowNamingTheDevices() {
		try (DeviceBuffer onFirst = this.registry.device(0).allocate(64);
				OffloadSession session = this.registry.openSession(1)) {
			DeviceBuffer onSecond = session.allocate(64);
			assertThatIllegalArgumentException().isThrownBy(() -> session.copy(onSecond, onFirst))
				.withMessageContaining("belongs to device 0, not device 1");
		}
	}

	/** Runs {@code y = a * x + y} on the session and returns y (x[i] = i, y[i] = 1). */
	private float[] saxpy(OffloadSession session, float a) {
		HostBuffer result = enqueueSaxpy(session, a);
		session.synchronize();
		return result.getFloats(0, new float[N]);
	}

	private HostBuffer enqueueSaxpy(OffloadSession session, float a) {
		float[] x = new float[N];
		float[] y = new float[N];
		for (int i = 0; i < N; i++) {
			x[i] = i;
			y[i] = 1;
		}
		DeviceBuffer dx = session.allocate((long) N * Float.BYTES);
		DeviceBuffer dy = session.allocate((long) N * Float.BYTES);
		session.copy(session.hostBuffer(x), dx);
		session.copy(session.hostBuffer(y), dy);
		session.launch(session.device().loadModule(TestKernels.MODULE).kernel("saxpy"), LaunchConfig.forThreads(N, 128),
				N, a, dx, dy);
		HostBuffer result = session.allocateHost((long) N * Float.BYTES);
		session.copy(dy, result);
		return result;
	}

	private static float[] expected(float a) {
		float[] y = new float[N];
		for (int i = 0; i < N; i++) {
			y[i] = a * i + 1;
		}
		return y;
	}

	private static float[] values(int salt) {
		float[] values = new float[N];
		for (int i = 0; i < N; i++) {
			values[i] = salt * 1000 + i;
		}
		return values;
	}

	/**
	 * Fails a device the way a GPU does: a kernel writes outside its buffer (a sticky
	 * illegal address).
	 */
	private void failWithIllegalAddress(int deviceId) {
		Device device = this.registry.device(deviceId);
		try (OffloadSession session = device.openSession()) {
			DeviceBuffer buffer = session.allocate(16);
			session.launch(device.loadModule(TestKernels.MODULE).kernel("outOfBounds"), LaunchConfig.of(1, 1), buffer);
			assertThatExceptionOfType(BackendException.class).isThrownBy(session::synchronize)
				.satisfies((error) -> assertThat(error.isSticky()).isTrue());
		}
		assertThat(device.isHealthy()).isFalse();
	}

	private static Map<Integer, Long> countByDevice(List<OffloadSession> sessions) {
		return sessions.stream()
			.collect(Collectors.groupingBy((session) -> session.device().id(), Collectors.counting()));
	}

}
