package dev.offload.test.kernel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.StreamPriority;
import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.KernelResult;
import dev.offload.template.OffloadAttributes;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link Gate} and {@link TestKernels#SLOW} on the host emulation: a held gate does not
 * take a worker from other streams, and a slow kernel takes its time once per launch.
 */
class TestKernelsTests {

	private static final int WORKERS = 2;

	/**
	 * Well below the gate's safety limit: a kernel that waits for a gate's worker to come
	 * back waits for that limit.
	 */
	private static final Duration PROMPTLY = Duration.ofSeconds(30);

	private final List<Gate> gates = new ArrayList<>();

	private final DeviceRegistry registry = DeviceRegistry
		.builder(HostBackend.builder().workersPerDevice(WORKERS).build())
		.build();

	private final OffloadTemplate template = new OffloadTemplate(this.registry);

	@AfterEach
	void close() {
		this.gates.forEach(Gate::close);
		this.registry.close(Duration.ofSeconds(30));
	}

	@Test
	void highKernelWhenAsManyGatesAreHeldAsWorkersShouldRunWhileTheGatesStayHeld() throws Exception {
		for (int i = 0; i < WORKERS; i++) {
			Gate gate = Gate.create();
			this.gates.add(gate);
			OffloadSession session = this.registry.device(0).openSession();
			gate.launch(session);
			session.closeAsync();
			assertThat(gate.awaitStarted(PROMPTLY)).isTrue();
		}
		CompletableFuture<KernelResult> high = this.template.kernel(TestKernels.SAXPY)
			.attributes(OffloadAttributes.DEFAULTS.withPriority(StreamPriority.HIGH))
			.threads(1)
			.arg(1)
			.arg(2f)
			.in(new float[] { 3f })
			.outFloats(1)
			.runAsync();
		await().atMost(PROMPTLY).until(high::isDone);
		// The gates still hold their streams.
		assertThat(this.registry.device(0).streamPool().inUse()).isEqualTo(WORKERS);
		assertThat(high.get().floats(0)).containsExactly(6f);
	}

	@Test
	void slowWhenLaunchedWithABlockOfManyThreadsShouldTakeItsTimeOncePerLaunch() {
		// 1,024 threads of 200 ms one after the other would take 205 s.
		CompletableFuture<Void> slow = CompletableFuture.runAsync(() -> {
			try (OffloadSession session = this.registry.device(0).openSession()) {
				session.launch(TestKernels.SLOW, LaunchConfig.of(1, 1024), 200);
			}
		});
		await().atMost(PROMPTLY).until(slow::isDone);
		assertThat(slow).isCompleted();
	}

}
