package dev.offload;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Every public entry point rejects bad input with a clear exception before anything is
 * enqueued.
 */
class BadInputTests {

	private DeviceRegistry registry;

	private Device device;

	private Kernel saxpy;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(2).workersPerDevice(2).build())
			.build();
		this.device = this.registry.device(0);
		this.saxpy = this.device.loadModule(TestKernels.MODULE).kernel("saxpy");
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void allocationLargerThanAnyDeviceShouldBeRefusedBeforeTheBudgetIsTouched() {
		for (long bytes : new long[] { Long.MAX_VALUE, 0x7100000000000000L, (1L << 62) + 1 }) {
			assertThatIllegalArgumentException().isThrownBy(() -> this.device.allocate(bytes))
				.withMessage("bytes must be at most 2^62 (4 EiB), was " + bytes);
			try (OffloadSession session = this.device.openSession()) {
				assertThatIllegalArgumentException().isThrownBy(() -> session.allocate(bytes))
					.withMessageContaining("at most 2^62");
				assertThat(session.reservedMemory()).isZero();
			}
		}
		MemoryStatistics statistics = this.device.memoryStatistics();
		assertThat(statistics.usedBytes()).isZero();
		assertThat(statistics.cachedBytes()).isZero();
		assertThat(this.device.isHealthy()).isTrue();
	}

	@Test
	void hostKernelReadingPastItsBufferShouldFailAsAnIllegalAddress() {
		Kernel copyFour = this.device.loadModule(ModuleDefinition.builder("pastTheEnd")
			.hostKernel("copyFour", java.util.List.of(ParamKind.POINTER, ParamKind.POINTER), (t) -> {
				for (int i = 0; i < 4; i++) {
					t.floats(1).put(i, t.floats(0).get(i));
				}
			})
			.build()).kernel("copyFour");
		try (OffloadSession session = this.device.openSession()) {
			// Three floats: the size class's block holds 512 bytes, the kernel sees 12.
			DeviceBuffer three = session.allocate(3 * Float.BYTES);
			DeviceBuffer four = session.allocate(4 * Float.BYTES);
			session.launch(copyFour, LaunchConfig.of(1, 1), three, four);
			assertThatExceptionOfType(BackendException.class).isThrownBy(session::synchronize)
				.satisfies((error) -> assertThat(error.getMessage()).contains("HOST_ERROR_ILLEGAL_ADDRESS"));
		}
	}

	@Test
	void unknownDeviceShouldListTheDevicesThatExist() {
		assertThatExceptionOfType(NoSuchDeviceException.class).isThrownBy(() -> this.registry.device(5))
			.withMessage("No device with id 5; the devices are [0, 1]");
		assertThatExceptionOfType(NoSuchDeviceException.class).isThrownBy(
				() -> DeviceRegistry.builder(HostBackend.builder().build()).deviceIds(java.util.List.of(0, 3)).build())
			.withMessage("No device with id 3; the devices are [0]");
	}

	@Test
	void negativeOrZeroSizesShouldBeRejected() {
		try (OffloadSession session = this.device.openSession()) {
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> session.allocate(-5))
				.withMessage("bytes must be at least 1, was -5");
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> session.allocateHost(0))
				.withMessage("bytes must be at least 1, was 0");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.allocateHost(3L * Integer.MAX_VALUE))
				.withMessageContaining("A host buffer holds at most 2147483647 bytes");
			assertThat(session.hasStream()).isFalse();
		}
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> LaunchConfig.of(0, 32))
			.withMessage("gridX must be at least 1, was 0");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> LaunchConfig.of(1, 2048))
			.withMessage("A block has at most 1024 threads, was 2048x1x1");
	}

	@Test
	void outOfBoundsCopyShouldBeRejectedBeforeAnythingIsEnqueued() {
		// An application-owned buffer: a session's own allocation borrows its stream.
		try (OffloadSession session = this.device.openSession(); DeviceBuffer small = this.device.allocate(8)) {
			HostBuffer host = session.allocateHost(16);
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> session.copy(host, small))
				.withMessage("Range [0, 0 + 16) of the copy's destination is outside the DeviceBuffer of 8 bytes");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.copy(host, 12, small, 0, 8))
				.withMessage("Range [12, 12 + 8) of the copy's source is outside the HostBuffer of 16 bytes");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.copy(host, -1, small, 0, 4))
				.withMessageContaining("Range [-1, -1 + 4)");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.fill(small, 4, 8, (byte) 0))
				.withMessage("Range [4, 4 + 8) of the fill is outside the DeviceBuffer of 8 bytes");
			assertThat(session.hasStream()).isFalse();
		}
	}

	@Test
	void wrongKernelArgumentsShouldNameTheArgument() {
		try (OffloadSession session = this.device.openSession(); DeviceBuffer x = this.device.allocate(16)) {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.launch(this.saxpy, LaunchConfig.of(1, 4), 4, 2f, x))
				.withMessage("Kernel 'saxpy' takes 4 arguments [INT32, FLOAT32, POINTER, POINTER], was given 3");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.launch(this.saxpy, LaunchConfig.of(1, 4), (Object[]) null))
				.withMessage("Kernel 'saxpy' takes 4 arguments [INT32, FLOAT32, POINTER, POINTER], was given 0");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.launch(this.saxpy, LaunchConfig.of(1, 4), 4, 2.0, x, x))
				.withMessage("Argument 1 of kernel 'saxpy' must be FLOAT32 (Float), was Double 2.0");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.launch(this.saxpy, LaunchConfig.of(1, 4), 4, 2f, x, null))
				.withMessage("Argument 3 of kernel 'saxpy' must be POINTER (DeviceBuffer), was null");
			assertThat(session.hasStream()).isFalse();
		}
	}

	@Test
	void unknownKernelShouldListTheKernelsThatExist() {
		KernelModule module = this.device.loadModule(TestKernels.MODULE);
		assertThatExceptionOfType(NoSuchKernelException.class).isThrownBy(() -> module.kernel("sgemm"))
			.withMessage("Module 'test' has no kernel 'sgemm'; its kernels are [saxpy, noop, fail, outOfBounds, hold]");
	}

	@Test
	void buffersAndKernelsOfAnotherDeviceShouldBeRejected() {
		Device other = this.registry.device(1);
		try (OffloadSession session = this.device.openSession(); OffloadSession remote = other.openSession()) {
			DeviceBuffer foreign = remote.allocate(16);
			DeviceBuffer local = session.allocate(16);
			// A source on another device is staged (MultiDeviceTests); the destination
			// must be the session's.
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> session.copy(local, foreign))
				.withMessage("The buffer for the copy's destination belongs to device 1, not device 0");
			Kernel remoteKernel = other.loadModule(TestKernels.MODULE).kernel("noop");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> session.launch(remoteKernel, LaunchConfig.of(1, 1)))
				.withMessageContaining("is not loaded on device 0");
		}
	}

	@Test
	void useAfterCloseShouldBeRejected() {
		OffloadSession session = this.device.openSession();
		DeviceBuffer buffer = session.allocate(16);
		StreamEvent event = session.recordEvent();
		session.close();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> session.allocate(4))
			.withMessageMatching("Session \\d+ on device 0 is closed; cannot allocate");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(session::synchronize)
			.withMessageContaining("is closed; cannot synchronize");
		assertThat(buffer.isClosed()).isTrue();
		try (OffloadSession next = this.device.openSession()) {
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> next.fill(buffer, (byte) 0))
				.withMessage("The DeviceBuffer of 16 bytes used for the fill is closed");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> next.waitFor(event))
				.withMessageContaining("The event's session has ended");
		}
	}

	@Test
	void closedDeviceBufferShouldBeRejected() {
		DeviceBuffer buffer = this.device.allocate(32);
		buffer.close();
		buffer.close();
		try (OffloadSession session = this.device.openSession()) {
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> session.launch(this.saxpy, LaunchConfig.of(1, 1), 1, 1f, buffer, buffer))
				.withMessage("The DeviceBuffer of 32 bytes used for argument 2 of kernel 'saxpy' is closed");
		}
	}

	@Test
	void closedRegistryShouldRefuseSessions() {
		this.registry.close();
		assertThatExceptionOfType(StreamPoolClosedException.class).isThrownBy(this.device::openSession)
			.withMessage("The stream pool of device 0 is shut down and lends no more streams");
	}

	@Test
	void moduleWithoutHostKernelsShouldFailToLoadOnTheHostBackend() {
		ModuleDefinition ptxOnly = ModuleDefinition.builder("ptxOnly").image(".version 8.0".getBytes()).build();
		assertThatExceptionOfType(dev.offload.BackendException.class).isThrownBy(() -> this.device.loadModule(ptxOnly))
			.withMessageContaining("HOST_ERROR_NO_HOST_CODE")
			.withMessageContaining("module 'ptxOnly' has no host kernels");
	}

	@Test
	void moduleWithMissingImageResourceShouldFailAtBuildNamingTheResource() {
		ModuleDefinition.Builder typo = ModuleDefinition.builder("typo").imageResource("typo.ptx");
		assertThatIllegalArgumentException().isThrownBy(typo::build)
			.withMessageStartingWith("The CUDA image of module 'typo', classpath:typo.ptx, does not exist");
	}

	@Test
	void moduleWithExistingImageResourceShouldBuild() {
		ModuleDefinition module = ModuleDefinition.builder("saxpy").imageResource("/kernels/saxpy.ptx").build();
		assertThat(module.imageSource()).isEqualTo("classpath:kernels/saxpy.ptx");
		assertThat(new String(module.image(), StandardCharsets.US_ASCII)).contains(".entry saxpy");
	}

}
