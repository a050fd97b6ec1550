package dev.offload;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.BackendDevice;

/**
 * Chooses a registry's devices: those a builder names among the backend's, and the least
 * busy healthy one for a session.
 */
final class DeviceSelection {

	private DeviceSelection() {
	}

	/**
	 * Returns the ids of the devices to use, checked against the backend's devices.
	 * @param byId the backend's devices by id, in the backend's order
	 * @param deviceIds the ids configured, or {@code null} for all
	 * @param perDevice the ids with a pool configuration of their own
	 * @return the ids wanted, as configured
	 * @throws NoSuchDeviceException if a configured id does not exist
	 */
	static List<Integer> wanted(Map<Integer, BackendDevice> byId, @Nullable List<Integer> deviceIds,
			Collection<Integer> perDevice) {
		List<Integer> available = new ArrayList<>(byId.keySet());
		List<Integer> wanted = (deviceIds != null) ? deviceIds : available;
		for (Integer id : wanted) {
			if (!byId.containsKey(id)) {
				throw new NoSuchDeviceException(id, available);
			}
		}
		for (Integer id : perDevice) {
			if (!wanted.contains(id)) {
				throw new NoSuchDeviceException(id, wanted);
			}
		}
		return wanted;
	}

	/**
	 * Returns the backend's devices by id, in its order.
	 * @param discovered the backend's devices
	 * @return the devices by id
	 */
	static Map<Integer, BackendDevice> byId(List<BackendDevice> discovered) {
		Map<Integer, BackendDevice> byId = new LinkedHashMap<>();
		discovered.forEach((device) -> byId.put(device.deviceId(), device));
		return byId;
	}

	/**
	 * Returns the healthy device with the fewest active sessions and waiting borrowers
	 * (the lowest id on a tie).
	 * @param devices the devices, in id order; at least one
	 * @return the device
	 * @throws DeviceFailedException if every device has failed
	 */
	static Device leastBusy(List<Device> devices) {
		if (devices.size() == 1) {
			// Nothing to compare: the load is not read (its count is summed over a cell
			// per thread, which every request would otherwise touch).
			Device only = devices.get(0);
			if (!only.isHealthy()) {
				throw new DeviceFailedException(only.id(), only.failure().orElseThrow());
			}
			return only;
		}
		Device best = null;
		int bestLoad = Integer.MAX_VALUE;
		for (Device device : devices) {
			if (!device.isHealthy()) {
				continue;
			}
			int load = device.activeSessions() + device.streamPool().waiting();
			if (load < bestLoad) {
				best = device;
				bestLoad = load;
			}
		}
		if (best == null) {
			Device first = devices.get(0);
			throw new DeviceFailedException(first.id(), first.failure().orElseThrow());
		}
		return best;
	}

}
