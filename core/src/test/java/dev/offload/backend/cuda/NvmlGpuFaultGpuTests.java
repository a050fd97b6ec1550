package dev.offload.backend.cuda;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.OffloadListener;
import dev.offload.health.GpuFault;
import dev.offload.internal.health.NvmlGpuFaultSource;
import dev.offload.spi.Backend;
import dev.offload.spi.GpuFaultSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NVML on a real GPU: it loads, finds device 0 by its UUID, and while a child JVM runs
 * the out-of-bounds kernel ({@link OutOfBoundsScenario}) on the same GPU, this JVM's
 * watcher records what NVML reports (an Xid 13 or 31, or nothing) and the time from the
 * child's launch to device 0 failing here (what readiness follows). It prints what it saw
 * and asserts only what must hold: nothing crashes, and a reported Xid is recorded.
 */
@GpuTests
class NvmlGpuFaultGpuTests {

	@Test
	void nvmlShouldLoadAndFindDevice0AndWaitWithoutAnEvent() throws InterruptedException {
		try (Backend backend = CudaTestBackends.create()) {
			try (GpuFaultSource source = NvmlGpuFaultSource.open(List.of(backend.devices().get(0)))) {
				System.out.println("NVML: " + source.description());
				assertThat(source.description()).contains("watches devices [0]");
				long start = System.nanoTime();
				GpuFaultSource.Report report = source.next(Duration.ofMillis(200));
				System.out.println("NVML: a 200 ms wait returned " + report + " after "
						+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
			}
		}
	}

	@Test
	void outOfBoundsKernelInAnotherProcessShouldBeRecordedAsNvmlReportsIt() throws Exception {
		List<GpuFault> faults = new CopyOnWriteArrayList<>();
		OffloadListener listener = new OffloadListener() {

			@Override
			public void gpuFault(Device device, GpuFault fault) {
				faults.add(fault);
			}

		};
		try (DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create())
			.deviceIds(List.of(0))
			.listener(listener)
			.build()) {
			System.out.println("NVML watch: " + registry.gpuFaultWatch());
			assertThat(registry.isWatchingGpuFaults()).as(registry.gpuFaultWatch()).isTrue();
			Device device = registry.device(0);
			CompletableFuture<ChildJvm.Result> child = CompletableFuture.supplyAsync(() -> {
				try {
					return ChildJvm.run("out-of-bounds scenario beside an NVML watch", OutOfBoundsScenario.class,
							Map.of());
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			// Polled, as a readiness probe would read the device, until the child is done
			// and NVML had a few seconds more to report.
			Instant failedAt = null;
			long deadline = Long.MAX_VALUE;
			while (System.nanoTime() < deadline) {
				if (failedAt == null && !device.isHealthy()) {
					failedAt = Instant.now();
				}
				if (child.isDone() && deadline == Long.MAX_VALUE) {
					deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
				}
				Thread.sleep(1);
			}
			ChildJvm.Result result = child.join();
			assertThat(result.exited()).as("the child JVM exited").isTrue();
			assertThat(result.exitCode()).as("the child JVM's exit code").isZero();
			Long launchedAt = launchedAt(result.output());
			System.out.println("NVML reported: " + (faults.isEmpty() ? "no event" : faults));
			System.out.println("Device 0 here: " + (device.isHealthy() ? (device.isDegraded() ? "degraded" : "healthy")
					: "failed: " + device.failure().orElseThrow()));
			if (failedAt != null && launchedAt != null) {
				System.out.println("Launch in the child to readiness DOWN here: "
						+ (failedAt.toEpochMilli() - launchedAt) + " ms");
			}
			else {
				System.out.println("Launch in the child to readiness DOWN here: not down");
			}
			for (GpuFault fault : faults) {
				assertThat(fault.deviceId()).isZero();
				assertThat(device.gpuFault()).isPresent();
				if (fault.fatal()) {
					assertThat(device.isHealthy()).isFalse();
				}
			}
		}
	}

	private static Long launchedAt(String output) {
		Matcher matcher = Pattern.compile("LAUNCH_AT=(\\d+)").matcher(output);
		return matcher.find() ? Long.valueOf(matcher.group(1)) : null;
	}

}
