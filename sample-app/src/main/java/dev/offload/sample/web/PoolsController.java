package dev.offload.sample.web;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint;

/**
 * The pools for the dashboard, on the application's own port: the actuator listens on a
 * management port bound to localhost, which a browser showing the dashboard from another
 * host cannot reach.
 */
@RestController
class PoolsController {

	private final StreamPoolsEndpoint endpoint;

	PoolsController(StreamPoolsEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * Reads every device's pool, as {@code /actuator/streampools} does.
	 * @return the pools
	 */
	@GetMapping("/api/pools")
	StreamPoolsEndpoint.StreamPoolsDescriptor pools() {
		return this.endpoint.streamPools();
	}

}
