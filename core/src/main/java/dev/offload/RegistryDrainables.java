package dev.offload;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@linkplain DeviceRegistry.Drainable work queued} over a registry's devices
 * (batchers), which the registry's close stops taking requests and drains before the
 * devices stop lending.
 */
final class RegistryDrainables {

	private static final Logger logger = LoggerFactory.getLogger(DeviceRegistry.class);

	private final List<DeviceRegistry.Drainable> drainables = new CopyOnWriteArrayList<>();

	void add(DeviceRegistry.Drainable drainable) {
		this.drainables.add(drainable);
	}

	void remove(DeviceRegistry.Drainable drainable) {
		this.drainables.remove(drainable);
	}

	/**
	 * Stops every work added taking requests, then drains each in turn within what is
	 * left until {@code deadline}, and forgets it.
	 * @param deadline when the drain ends ({@link System#nanoTime()})
	 * @return {@code true} if every work ran what it accepted in time
	 */
	boolean drain(long deadline) {
		List<DeviceRegistry.Drainable> queued = List.copyOf(this.drainables);
		for (DeviceRegistry.Drainable drainable : queued) {
			try {
				drainable.stopAccepting();
			}
			catch (RuntimeException ex) {
				logger.warn("Offload could not stop {} taking work", drainable, ex);
			}
		}
		boolean drained = true;
		for (DeviceRegistry.Drainable drainable : queued) {
			Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
			try {
				drained &= drainable.drain(left);
			}
			catch (RuntimeException ex) {
				logger.warn("Offload could not drain {}", drainable, ex);
				drained = false;
			}
			this.drainables.remove(drainable);
		}
		return drained;
	}

}
