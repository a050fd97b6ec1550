package dev.offload.backend.host;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The host backend keeps CUDA's stream semantics: in order within a stream, concurrent
 * across streams up to the workers, higher priority first, synchronize waits for exactly
 * the work before it, events order streams.
 */
class HostBackendTests {

	private static final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();

	private static final Map<Integer, CountDownLatch> started = new ConcurrentHashMap<>();

	private static final List<Integer> order = new CopyOnWriteArrayList<>();

	private static final ModuleDefinition MODULE = ModuleDefinition.builder("hostTest")
		.hostKernel("hold", List.of(ParamKind.INT32), (t) -> {
			started(t.intArg(0)).countDown();
			awaitLatch(gate(t.intArg(0)));
		})
		.hostKernel("mark", List.of(ParamKind.INT32), (t) -> order.add(t.intArg(0)))
		.build();

	private HostBackend backend;

	private BackendDevice device(int workers) {
		this.backend = HostBackend.builder().workersPerDevice(workers).build();
		return this.backend.devices().get(0);
	}

	@AfterEach
	void tearDown() {
		gates.values().forEach(CountDownLatch::countDown);
		this.backend.close();
		order.clear();
	}

	private static CountDownLatch gate(int id) {
		return gates.computeIfAbsent(id, (key) -> new CountDownLatch(1));
	}

	private static CountDownLatch started(int id) {
		return started.computeIfAbsent(id, (key) -> new CountDownLatch(1));
	}

	private static void awaitLatch(CountDownLatch latch) {
		try {
			latch.await(60, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static BackendKernel kernel(BackendDevice device, String name) {
		return device.loadModule(MODULE).kernels().get(name);
	}

	private static void launch(BackendStream stream, BackendKernel kernel, int arg) {
		stream.launch(kernel, 1, 1, 1, 1, 1, 1, 0, new Object[] { arg });
	}

	@Test
	void workOnOneStreamShouldRunInOrder() {
		BackendDevice device = device(4);
		BackendStream stream = device.createStream(0);
		BackendKernel mark = kernel(device, "mark");
		for (int i = 0; i < 100; i++) {
			launch(stream, mark, i);
		}
		stream.synchronize();
		assertThat(order).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 100).boxed().toList());
		assertThat(stream.query()).isTrue();
	}

	@Test
	void synchronizeShouldWaitForExactlyTheWorkEnqueuedBeforeIt() throws Exception {
		BackendDevice device = device(4);
		BackendStream stream = device.createStream(0);
		BackendKernel hold = kernel(device, "hold");
		launch(stream, hold, 1);
		// Once the kernel runs, the worker holds no lock of the stream: a WAITING
		// synchronizer is in its await.
		awaitLatch(started(1));
		Thread[] syncThread = new Thread[1];
		CompletableFuture<Void> sync = CompletableFuture.runAsync(() -> {
			syncThread[0] = Thread.currentThread();
			stream.synchronize();
		});
		await().until(() -> syncThread[0] != null && syncThread[0].getState() == Thread.State.WAITING);
		launch(stream, hold, 2);
		assertThat(sync).isNotDone();
		gate(1).countDown();
		sync.get(30, TimeUnit.SECONDS);
		assertThat(stream.query()).isFalse();
		gate(2).countDown();
		stream.synchronize();
		assertThat(stream.query()).isTrue();
	}

	@Test
	void streamsShouldRunConcurrentlyUpToTheWorkers() {
		BackendDevice device = device(2);
		BackendKernel hold = kernel(device, "hold");
		BackendStream a = device.createStream(0);
		BackendStream b = device.createStream(0);
		BackendStream c = device.createStream(0);
		launch(a, hold, 11);
		launch(b, hold, 12);
		launch(c, hold, 13);
		awaitLatch(started(11));
		awaitLatch(started(12));
		// Both workers are held, so the third stream cannot have started.
		assertThat(started(13).getCount()).isEqualTo(1);
		gate(11).countDown();
		awaitLatch(started(13));
		assertThat(started(13).getCount()).isZero();
		gate(12).countDown();
		gate(13).countDown();
		a.synchronize();
		b.synchronize();
		c.synchronize();
	}

	@Test
	void higherPriorityStreamShouldRunFirst() {
		BackendDevice device = device(1);
		BackendKernel hold = kernel(device, "hold");
		BackendKernel mark = kernel(device, "mark");
		BackendStream blocker = device.createStream(0);
		BackendStream normal = device.createStream(0);
		BackendStream high = device.createStream(-5);
		launch(blocker, hold, 21);
		awaitLatch(started(21));
		launch(normal, mark, 1);
		launch(high, mark, 2);
		gate(21).countDown();
		normal.synchronize();
		high.synchronize();
		assertThat(order).containsExactly(2, 1);
	}

	@Test
	void waitForShouldHoldBackAnotherStreamUntilTheEventCompletes() {
		BackendDevice device = device(4);
		BackendKernel hold = kernel(device, "hold");
		BackendKernel mark = kernel(device, "mark");
		BackendStream producer = device.createStream(0);
		BackendStream consumer = device.createStream(0);
		BackendEvent event = device.createEvent();
		assertThat(event.query()).isTrue();
		launch(producer, hold, 31);
		producer.record(event);
		consumer.waitFor(event);
		launch(consumer, mark, 7);
		awaitLatch(started(31));
		assertThat(event.query()).isFalse();
		assertThat(consumer.query()).isFalse();
		assertThat(order).isEmpty();
		gate(31).countDown();
		consumer.synchronize();
		assertThat(order).containsExactly(7);
		assertThat(event.query()).isTrue();
	}

	@Test
	void invalidPriorityShouldBeRejected() {
		BackendDevice device = device(1);
		assertThatExceptionOfType(dev.offload.BackendException.class).isThrownBy(() -> device.createStream(3))
			.withMessageContaining("priority 3 is outside 0..-5");
	}

	@Test
	void builderShouldValidateItsValues() {
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> HostBackend.builder().deviceCount(0))
			.withMessage("deviceCount must be between 1 and 64, was 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> HostBackend.builder().workersPerDevice(0))
			.withMessage("workersPerDevice must be at least 1, was 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> HostBackend.builder().deviceCount(2).deviceNames(List.of("a")).build())
			.withMessage("deviceNames must name each of the 2 devices, was [a]");
		this.backend = HostBackend.builder().deviceCount(3).deviceNames(List.of("a", "b", "c")).build();
		assertThat(this.backend.devices()).extracting((device) -> device.info().name()).containsExactly("a", "b", "c");
	}

}
