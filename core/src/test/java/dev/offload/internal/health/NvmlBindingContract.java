package dev.offload.internal.health;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offload.FakeGpuBackend;
import dev.offload.FakeLibrary;
import dev.offload.spi.GpuFaultSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What an NVML binding hands NVML and reads back, checked through
 * {@link NvmlGpuFaultSource} against a fake {@code libnvidia-ml.so.1} compiled here with
 * {@code cc} (skipped without one): the device found by its UUID, its events registered,
 * an Xid read from the event data, a timeout, and the release. One subclass per binding:
 * JNA's here, the FFM backend's in offload-backend-ffm.
 */
public abstract class NvmlBindingContract {

	private static final String SOURCE = "/dev/offload/backend/cuda/fake-nvml.c";

	@TempDir
	static Path directory;

	private static FakeLibrary fake;

	/**
	 * Loads the binding under test from a path.
	 * @param library the fake's path
	 * @return the binding
	 */
	protected abstract Nvml load(Path library);

	@BeforeAll
	static void compileTheFake() {
		String missing = FakeLibrary.compilerMissing();
		assumeTrue(missing == null, missing);
		fake = FakeLibrary.compile(SOURCE, directory, "libnvidia-ml.so.1");
	}

	@BeforeEach
	void clearTheFake() {
		fake.clear();
	}

	@Test
	public void aDeviceShouldBeFoundByItsUuidAndItsXidsRead() throws InterruptedException {
		GpuFaultSource source = NvmlGpuFaultSource.open(load(fake.path()),
				new FakeGpuBackend((type) -> null).devices());
		assertThat(source.description()).isEqualTo("NVML (driver 580.00.fake) watches devices [0] for Xid errors");
		GpuFaultSource.Report report = source.next(Duration.ofSeconds(2));
		assertThat(report).isNotNull();
		assertThat(report.deviceId()).isZero();
		assertThat(report.xid()).isEqualTo(79);
		fake.fail("nvmlEventSetWait_v2", Nvml.ERROR_TIMEOUT);
		assertThat(source.next(Duration.ofMillis(5))).isNull();
		source.close();
		assertThat(fake.calls().stream().map((call) -> call.replaceAll("data@[0-9a-f]+", "data"))).containsExactly(
				"nvmlInit_v2()", "nvmlEventSetCreate()",
				"nvmlDeviceGetHandleByUUID(uuid=GPU-" + FakeGpuBackend.UUID + ")",
				"nvmlDeviceGetSupportedEventTypes(device=de1)", "nvmlDeviceRegisterEvents(device=de1,types=a,set=e5e7)",
				"nvmlSystemGetDriverVersion(length=96)", "nvmlEventSetWait_v2(set=e5e7,data,timeout=2000)",
				"nvmlEventSetWait_v2(set=e5e7,data,timeout=5)", "nvmlEventSetFree(set=e5e7)", "nvmlShutdown()");
	}

	@Test
	public void aFailedStartShouldSayWhyInNvmlsWords() {
		fake.fail("nvmlInit_v2", 9);
		Nvml nvml = load(fake.path());
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> NvmlGpuFaultSource.open(nvml, new FakeGpuBackend((type) -> null).devices()))
			.withMessage("nvmlInit_v2 failed: fake NVML error 9");
	}

}
