package dev.offload.test.contract;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;

/**
 * {@link SessionBehaviourContract} on the host backend, with the contract's own no-op
 * kernel and gate.
 */
class HostSessionBehaviourTests extends SessionBehaviourContract {

	@Override
	protected Backend createBackend() {
		return HostBackend.builder().workersPerDevice(4).build();
	}

}
