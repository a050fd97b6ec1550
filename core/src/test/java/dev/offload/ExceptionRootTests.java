package dev.offload;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.template.OffloadTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A device's failure reaches the application as an {@link OffloadException}, the one root
 * it catches, through every entry point of the API: a session, a module load and the
 * template.
 */
class ExceptionRootTests {

	private DeviceRegistry registry;

	private Device device;

	private KernelModule module;

	@BeforeEach
	void setUp() {
		this.registry = DeviceRegistry.builder(HostBackend.builder().deviceCount(1).workersPerDevice(2).build())
			.build();
		this.device = this.registry.device(0);
		this.module = this.device.loadModule(TestKernels.MODULE);
	}

	@AfterEach
	void tearDown() {
		this.registry.close(Duration.ofSeconds(5));
	}

	@Test
	void failedWorkWhenSessionClosesShouldBeCaughtAsOffloadException() {
		OffloadSession session = this.device.openSession();
		session.launch(this.module.kernel("fail"), LaunchConfig.of(1, 1), 1);
		OffloadException caught = catchOffloadException(session::close);
		assertThat(caught).isInstanceOf(BackendException.class).hasMessageContaining("kernel failed on purpose 1");
		assertThat(((BackendException) caught).getDeviceId()).isZero();
	}

	@Test
	void moduleTheBackendCannotLoadShouldBeCaughtAsOffloadException() {
		ModuleDefinition ptxOnly = ModuleDefinition.builder("ptxOnly").image(".version 8.0".getBytes()).build();
		OffloadException caught = catchOffloadException(() -> this.device.loadModule(ptxOnly));
		assertThat(caught).isInstanceOf(BackendException.class).hasMessageContaining("HOST_ERROR_NO_HOST_CODE");
	}

	@Test
	void failedWorkInTemplateShouldBeCaughtAsOffloadException() {
		OffloadTemplate template = new OffloadTemplate(this.registry);
		OffloadException caught = catchOffloadException(() -> template.execute((session) -> {
			session.launch(this.module.kernel("fail"), LaunchConfig.of(1, 1), 2);
			return null;
		}));
		assertThat(caught).isInstanceOf(BackendException.class).hasMessageContaining("kernel failed on purpose 2");
	}

	@Test
	void backendExceptionShouldBeAnOffloadException() {
		assertThatExceptionOfType(OffloadException.class).isThrownBy(() -> {
			throw new BackendException("cuStreamSynchronize", "CUDA_ERROR_ILLEGAL_ADDRESS", "illegal address", 0, true,
					null);
		})
			.withMessage("cuStreamSynchronize failed on device 0: CUDA_ERROR_ILLEGAL_ADDRESS (illegal address); "
					+ "the device is unusable until the process restarts");
	}

	// A catch clause as an application writes it, not an assertion on the type alone.
	private static OffloadException catchOffloadException(Runnable call) {
		try {
			call.run();
		}
		catch (OffloadException ex) {
			return ex;
		}
		throw new AssertionError("No OffloadException was thrown");
	}

}
