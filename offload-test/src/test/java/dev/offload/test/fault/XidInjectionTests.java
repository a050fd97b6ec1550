package dev.offload.test.fault;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceFailedException;
import dev.offload.DeviceRegistry;
import dev.offload.GpuFaultException;
import dev.offload.OffloadListener;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;
import dev.offload.health.GpuFault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Xids injected as NVML would report them: the registry's watcher fails a device on a
 * fatal one, degrades it on a lesser one, and stops with the registry.
 */
class XidInjectionTests {

	private final List<GpuFault> reported = new CopyOnWriteArrayList<>();

	private final OffloadListener listener = new OffloadListener() {

		@Override
		public void gpuFault(Device device, GpuFault fault) {
			XidInjectionTests.this.reported.add(fault);
		}

	};

	private FaultInjectingBackend faults = FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).build());

	private DeviceRegistry registry = DeviceRegistry.builder(this.faults).listener(this.listener).build();

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void xid79ShouldFailItsDeviceOnlyAndNameTheXidToNewSessions() {
		Instant before = Instant.now();
		this.faults.injectXid(1, 79);
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.registry.device(1).isHealthy());
		assertThatExceptionOfType(DeviceFailedException.class).isThrownBy(() -> this.registry.openSession(1))
			.withMessageContaining("Xid 79")
			.withMessageContaining("GPU has fallen off the bus")
			.withCauseInstanceOf(GpuFaultException.class);
		GpuFault fault = this.registry.device(1).gpuFault().orElseThrow();
		assertThat(fault.xid()).isEqualTo(79);
		assertThat(fault.fatal()).isTrue();
		assertThat(fault.time()).isAfterOrEqualTo(before);
		assertThat(this.registry.device(1).isDegraded()).isFalse();
		assertThat(this.reported).containsExactly(fault);
		// The other device goes on lending.
		assertThat(this.registry.device(0).isHealthy()).isTrue();
		assertThat(this.registry.device(0).gpuFault()).isEmpty();
		try (OffloadSession session = this.registry.openSession(0)) {
			session.streamId();
		}
		assertThat(this.registry.leastBusy().id()).isZero();
	}

	@Test
	void lesserXidShouldDegradeItsDeviceWhichGoesOnLending() {
		this.faults.injectXid(0, 63);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.registry.device(0).isDegraded());
		Device device = this.registry.device(0);
		assertThat(device.isHealthy()).isTrue();
		assertThat(device.gpuFault()).hasValueSatisfying((fault) -> {
			assertThat(fault.xid()).isEqualTo(63);
			assertThat(fault.fatal()).isFalse();
			assertThat(fault.meaning()).contains("row remapping");
		});
		try (OffloadSession session = this.registry.openSession(0)) {
			session.streamId();
		}
		assertThat(this.registry.device(1).isDegraded()).isFalse();
	}

	@Test
	void fatalXidShouldStayTheDevicesFaultOverLaterLesserOnes() {
		this.faults.injectXid(0, 48).injectXid(0, 92);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.reported.size() == 2);
		assertThat(this.registry.device(0).gpuFault())
			.hasValueSatisfying((fault) -> assertThat(fault.xid()).isEqualTo(48));
		assertThat(this.registry.device(0).isHealthy()).isFalse();
		assertThat(this.registry.device(0).isDegraded()).isFalse();
	}

	@Test
	void xidInjectedBeforeTheRegistryShouldBeReadOnceItWatches() {
		this.registry.close();
		this.faults = FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).build()).injectXid(0, 31);
		this.registry = DeviceRegistry.builder(this.faults).build();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.registry.device(0).isHealthy());
		assertThat(this.registry.device(0).failure()).hasValueSatisfying(
				(failure) -> assertThat(failure).hasMessageContaining("Xid 31").hasMessageContaining("page fault"));
	}

	@Test
	void watcherShouldRunOnADaemonThreadThatStopsWhenTheRegistryCloses() {
		assertThat(this.registry.isWatchingGpuFaults()).isTrue();
		assertThat(this.registry.gpuFaultWatch()).contains("injected")
			.contains("the host backend has no GPU to report faults");
		assertThat(watcherThreads()).isNotEmpty().allSatisfy((thread) -> assertThat(thread.isDaemon()).isTrue());
		this.registry.close();
		assertThat(this.registry.isWatchingGpuFaults()).isFalse();
		assertThat(watcherThreads()).isEmpty();
	}

	@Test
	void registryBuiltNotToWatchShouldSaySoAndReadNoXid() throws InterruptedException {
		this.registry.close();
		this.faults = FaultInjectingBackend.wrap(HostBackend.builder().deviceCount(2).build()).injectXid(0, 79);
		this.registry = DeviceRegistry.builder(this.faults).watchGpuFaults(false).build();
		assertThat(this.registry.isWatchingGpuFaults()).isFalse();
		assertThat(this.registry.gpuFaultWatch()).contains("offload.health.nvml.enabled=false");
		assertThat(watcherThreads()).isEmpty();
		Thread.sleep(100);
		assertThat(this.registry.device(0).isHealthy()).isTrue();
	}

	@Test
	void hostBackendShouldSayWhyNoFaultIsWatched() {
		try (DeviceRegistry host = DeviceRegistry.builder(HostBackend.builder().build()).build()) {
			assertThat(host.isWatchingGpuFaults()).isFalse();
			assertThat(host.gpuFaultWatch()).isEqualTo("the host backend has no GPU to report faults");
		}
	}

	@Test
	void injectXidShouldRejectAnUnknownDevice() {
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> this.faults.injectXid(7, 79))
			.withMessageContaining("No device 7");
	}

	private static List<Thread> watcherThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals("offload-nvml") && thread.isAlive())
			.toList();
	}

}
