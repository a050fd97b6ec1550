package dev.offload.test.contract;

import java.time.Duration;

import dev.offload.Device;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;
import dev.offload.test.kernel.TestKernels;

/**
 * {@link SessionBehaviourContract} on the host backend; the gate is offload-test's gate kernel.
 */
class HostSessionBehaviourTests extends SessionBehaviourContract {

	@Override
	protected Backend createBackend() {
		return HostBackend.builder().workersPerDevice(4).build();
	}

	@Override
	protected Kernel noop(Device device) {
		return device.loadModule(TestKernels.MODULE).kernel("noop");
	}

	@Override
	protected Gate gate(Device device) {
		dev.offload.test.kernel.Gate gate = dev.offload.test.kernel.Gate.create();
		return new Gate() {

			@Override
			public void hold(OffloadSession session) {
				gate.launch(session);
				try {
					if (!gate.awaitStarted(Duration.ofSeconds(60))) {
						throw new IllegalStateException(gate + " did not start within 60 s");
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}

			@Override
			public void release() {
				gate.close();
			}

		};
	}

}
