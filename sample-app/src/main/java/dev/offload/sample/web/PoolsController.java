package dev.offload.sample.web;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.MemoryStatistics;
import dev.offload.StreamPoolStatistics;

/**
 * What the dashboard draws, on the application's own port: per device whether it is
 * healthy, its pool's size, in use, idle and waiting, the most streams it has lent at
 * once (a lend shorter than the dashboard's poll shows only there), and the share of its
 * memory budget in use. Nothing more: device names, failure messages, configuration and
 * counters are for operators, on the actuator's {@code /actuator/streampools} (on the
 * management port, bound to localhost).
 */
@RestController
class PoolsController {

	private final DeviceRegistry registry;

	PoolsController(DeviceRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Reads every device's pool.
	 * @return the pools
	 */
	@GetMapping("/api/pools")
	Pools pools() {
		return new Pools(this.registry.backend().name(),
				this.registry.devices().stream().map(PoolsController::describe).toList());
	}

	private static DevicePool describe(Device device) {
		StreamPoolStatistics pool = device.streamPool().statistics();
		MemoryStatistics memory = device.memoryStatistics();
		Double memoryUse = memory.isBudgeted() ? (double) memory.usedBytes() / memory.budgetBytes() : null;
		return new DevicePool(device.id(), device.isHealthy(), pool.size(), pool.inUse(), pool.idle(), pool.waiting(),
				pool.peakInUse(), memoryUse);
	}

	/**
	 * The pools of every device.
	 *
	 * @param backend {@code cuda} or {@code host}
	 * @param devices the devices, in id order
	 */
	record Pools(String backend, List<DevicePool> devices) {

	}

	/**
	 * One device's pool as the dashboard draws it.
	 *
	 * @param id the device's id
	 * @param healthy whether it takes work
	 * @param size streams alive
	 * @param inUse streams lent
	 * @param idle streams in the pool
	 * @param waiting borrowers waiting for a stream
	 * @param peakInUse the most streams lent at once since the pool started
	 * @param memoryUse the share of the device's memory budget in use, from 0 to 1, or
	 * {@code null} without a budget
	 */
	record DevicePool(int id, boolean healthy, int size, int inUse, int idle, int waiting, int peakInUse,
			Double memoryUse) {

	}

}
