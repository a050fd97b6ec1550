package com.example.scaling;

import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;
import dev.offload.test.contract.SessionBehaviourContract;

/**
 * Offload's session behaviours on a backend: replace the host backend with yours.
 */
class BackendContractTests extends SessionBehaviourContract {

	@Override
	protected Backend createBackend() {
		return HostBackend.builder().deviceCount(1).build();
	}

}
