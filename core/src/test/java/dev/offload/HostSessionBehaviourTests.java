package dev.offload;

import java.util.concurrent.atomic.AtomicInteger;

import dev.offload.backend.host.HostBackend;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.Backend;

/**
 * {@link SessionBehaviourContract} on the host backend; the gate is a kernel waiting on a latch.
 */
class HostSessionBehaviourTests extends SessionBehaviourContract {

	private static final AtomicInteger gateIds = new AtomicInteger(10_000);

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
		int id = gateIds.incrementAndGet();
		Kernel hold = device.loadModule(TestKernels.MODULE).kernel("hold");
		return new Gate() {

			@Override
			public void hold(OffloadSession session) {
				session.launch(hold, LaunchConfig.of(1, 1), id);
				TestKernels.await(TestKernels.started(id));
			}

			@Override
			public void release() {
				TestKernels.gate(id).countDown();
			}

		};
	}

}
