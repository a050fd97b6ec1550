package dev.offload.internal.health;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.GpuFaultSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link NvmlGpuFaultSource} over a fake NVML: devices found by UUID, their events
 * registered, and each event read as its device's Xid.
 */
class NvmlGpuFaultSourceTests {

	private final FakeNvml nvml = new FakeNvml();

	@Test
	void openShouldRegisterTheWatchedEventsOfEachDeviceFoundByUuid() {
		this.nvml.devices.put("GPU-aaaa", 0x1000L);
		this.nvml.devices.put("GPU-bbbb", 0x2000L);
		try (GpuFaultSource source = NvmlGpuFaultSource.open(this.nvml,
				List.of(device(0, "aaaa"), device(1, "bbbb")))) {
			assertThat(this.nvml.registered).containsExactly(0x1000L, 0x2000L);
			assertThat(this.nvml.registeredTypes).containsExactly(Nvml.WATCHED & FakeNvml.SUPPORTED,
					Nvml.WATCHED & FakeNvml.SUPPORTED);
			assertThat(source.description()).isEqualTo("NVML (driver 570.0) watches devices [0, 1] for Xid errors");
		}
		assertThat(this.nvml.freed).isTrue();
		assertThat(this.nvml.shutdowns).isOne();
	}

	@Test
	void nextShouldReadEachEventAsItsDevicesXid() throws InterruptedException {
		this.nvml.devices.put("GPU-aaaa", 0x1000L);
		this.nvml.devices.put("GPU-bbbb", 0x2000L);
		this.nvml.events.add(new long[] { 0x2000L, Nvml.EVENT_XID_CRITICAL, 79 });
		this.nvml.events.add(new long[] { 0x1000L, Nvml.EVENT_DOUBLE_BIT_ECC, 0 });
		this.nvml.events.add(new long[] { 0x1000L, Nvml.EVENT_DRAM_RETIREMENT, 0 });
		this.nvml.events.add(new long[] { 0x1000L, Nvml.EVENT_DRAM_RETIREMENT_FAILURE, 0 });
		try (GpuFaultSource source = NvmlGpuFaultSource.open(this.nvml,
				List.of(device(0, "aaaa"), device(1, "bbbb")))) {
			List<String> read = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				GpuFaultSource.Report report = source.next(Duration.ofMillis(10));
				read.add(report.deviceId() + ":" + report.xid());
			}
			assertThat(read).containsExactly("1:79", "0:48", "0:63", "0:64");
			assertThat(source.next(Duration.ofMillis(10))).isNull();
			assertThat(this.nvml.lastTimeoutMs).isEqualTo(10);
		}
	}

	@Test
	void openShouldWatchTheDevicesFoundAndNameTheOthers() {
		this.nvml.devices.put("GPU-aaaa", 0x1000L);
		try (GpuFaultSource source = NvmlGpuFaultSource.open(this.nvml,
				List.of(device(0, "aaaa"), device(1, "cccc"), device(2, null)))) {
			assertThat(source.description()).contains("watches devices [0]")
				.contains("not device 1 (GPU-cccc) is not in NVML: Not Found")
				.contains("device 2 has no UUID to find it by");
		}
	}

	@Test
	void openWhenNoDeviceIsFoundShouldSayWhyAndReleaseNvml() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> NvmlGpuFaultSource.open(this.nvml, List.of(device(0, "cccc"))))
			.withMessage("NVML watches none of the devices: device 0 (GPU-cccc) is not in NVML: Not Found");
		assertThat(this.nvml.freed).isTrue();
		assertThat(this.nvml.shutdowns).isOne();
	}

	@Test
	void openWhenNvmlDoesNotStartShouldSayWhy() {
		this.nvml.initResult = 9;
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> NvmlGpuFaultSource.open(this.nvml, List.of(device(0, "aaaa"))))
			.withMessage("nvmlInit_v2 failed: Driver Not Loaded");
	}

	@Test
	void openWithoutTheLibraryShouldSayWhy() {
		org.junit.jupiter.api.Assumptions.assumeTrue(nvmlMissing(), "libnvidia-ml.so.1 is installed here");
		List<BackendDevice> devices = HostBackend.builder().build().devices();
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> NvmlGpuFaultSource.open(devices))
			.withMessageStartingWith("libnvidia-ml.so.1 could not be loaded: ");
	}

	private static boolean nvmlMissing() {
		try {
			JnaNvml.load();
			return false;
		}
		catch (UnsatisfiedLinkError ex) {
			return true;
		}
	}

	private static BackendDevice device(int id, String uuid) {
		BackendDevice host = HostBackend.builder().build().devices().get(0);
		return (BackendDevice) java.lang.reflect.Proxy.newProxyInstance(BackendDevice.class.getClassLoader(),
				new Class<?>[] { BackendDevice.class }, (proxy, method, args) -> switch (method.getName()) {
					case "deviceId" -> id;
					case "uuid" -> Optional.ofNullable(uuid);
					default -> method.invoke(host, args);
				});
	}

	/** NVML as a map of UUIDs and a queue of events. */
	static final class FakeNvml implements Nvml {

		static final long SUPPORTED = EVENT_XID_CRITICAL | EVENT_DOUBLE_BIT_ECC | EVENT_DRAM_RETIREMENT;

		final Map<String, Long> devices = new HashMap<>();

		final Deque<long[]> events = new ArrayDeque<>();

		final List<Long> registered = new ArrayList<>();

		final List<Long> registeredTypes = new ArrayList<>();

		int initResult = SUCCESS;

		int shutdowns;

		boolean freed;

		int lastTimeoutMs;

		@Override
		public int init() {
			return this.initResult;
		}

		@Override
		public int shutdown() {
			this.shutdowns++;
			return SUCCESS;
		}

		@Override
		public String errorString(int result) {
			return switch (result) {
				case ERROR_NOT_FOUND -> "Not Found";
				case 9 -> "Driver Not Loaded";
				default -> "error " + result;
			};
		}

		@Override
		public String driverVersion() {
			return "570.0";
		}

		@Override
		public int deviceByUuid(String uuid, long[] device) {
			Long handle = this.devices.get(uuid);
			if (handle == null) {
				return ERROR_NOT_FOUND;
			}
			device[0] = handle;
			return SUCCESS;
		}

		@Override
		public int supportedEventTypes(long device, long[] types) {
			types[0] = SUPPORTED;
			return SUCCESS;
		}

		@Override
		public int eventSetCreate(long[] set) {
			set[0] = 0xE000L;
			return SUCCESS;
		}

		@Override
		public int registerEvents(long device, long types, long set) {
			this.registered.add(device);
			this.registeredTypes.add(types);
			return SUCCESS;
		}

		@Override
		public int eventSetWait(long set, long[] event, int timeoutMs) {
			this.lastTimeoutMs = timeoutMs;
			long[] next = this.events.poll();
			if (next == null) {
				return ERROR_TIMEOUT;
			}
			System.arraycopy(next, 0, event, 0, 3);
			return SUCCESS;
		}

		@Override
		public int eventSetFree(long set) {
			this.freed = true;
			return SUCCESS;
		}

	}

}
