package dev.offload.backend.cuda;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.spi.Backend;
import dev.offload.test.contract.SessionBehaviourContract;

/**
 * {@link SessionBehaviourContract} on a real GPU; the gate is the {@code %globaltimer}
 * spin kernel, released by a copy from another stream. Once the registry has started,
 * JCuda's exception mode is switched to {@link #exceptionMode()}.
 */
@GpuTests
class CudaSessionBehaviourGpuTests extends SessionBehaviourContract {

	@AfterAll
	static void restoreExceptionMode() {
		JCudaExceptionMode.configured().apply();
	}

	/**
	 * Returns the exception mode the suite runs in: the run's, unless a subclass says
	 * otherwise.
	 * @return the mode
	 */
	JCudaExceptionMode exceptionMode() {
		return JCudaExceptionMode.configured();
	}

	@BeforeEach
	void switchExceptionModeAfterTheRegistryStarted() {
		// Runs after the contract's own @BeforeEach, which started the registry.
		exceptionMode().apply();
	}

	@Override
	protected Backend createBackend() {
		return CudaTestBackends.create();
	}

	@Override
	protected Kernel noop(Device device) {
		return device.loadModule(TestKernels.EMPTY).kernel("empty");
	}

	@Override
	protected Gate gate(Device device) {
		// The spin module loads before anything spins (see the contract's setup), and the
		// blocks the sessions use are in the buffer cache, so that no driver allocation
		// runs while a kernel is held.
		TestKernels.spin(device);
		TestKernels.warmBufferCache(device, 12);
		DeviceBuffer flag = TestKernels.releaseFlag(device);
		return new Gate() {

			private boolean released;

			@Override
			public void hold(OffloadSession session) {
				TestKernels.launchSpin(session, flag);
			}

			@Override
			public void release() {
				if (!this.released) {
					this.released = true;
					TestKernels.release(device, flag);
				}
			}

		};
	}

}
