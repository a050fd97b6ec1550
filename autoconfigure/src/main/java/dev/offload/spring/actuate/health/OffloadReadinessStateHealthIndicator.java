package dev.offload.spring.actuate.health;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.application.ReadinessStateHealthIndicator;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.StreamPool;

/**
 * The {@code readinessState} health indicator of the {@code readiness} probe group,
 * refined with the devices of a {@link DeviceRegistry}: it reports
 * {@link ReadinessState#REFUSING_TRAFFIC} (HTTP 503, {@code OUT_OF_SERVICE}) while the
 * application refuses traffic, and also, when so configured, while a device has failed
 * with a sticky error or while a device's pool is {@linkplain #isSaturated(StreamPool)
 * saturated}.
 * <p>
 * It reads the devices each time the probe asks, so it never changes the application's
 * own availability state: a saturation that ends needs nothing reverted, and it never
 * overrides the state Spring Boot publishes at startup or shutdown.
 */
public final class OffloadReadinessStateHealthIndicator extends ReadinessStateHealthIndicator {

	private final DeviceRegistry registry;

	private final boolean onDeviceFailure;

	private final boolean onSaturation;

	/**
	 * Creates an indicator.
	 * @param availability the application's availability state
	 * @param registry the devices to check
	 * @param onDeviceFailure whether a failed device makes the application refuse traffic
	 * @param onSaturation whether a saturated pool makes the application refuse traffic
	 */
	public OffloadReadinessStateHealthIndicator(ApplicationAvailability availability, DeviceRegistry registry,
			boolean onDeviceFailure, boolean onSaturation) {
		super(availability);
		this.registry = registry;
		this.onDeviceFailure = onDeviceFailure;
		this.onSaturation = onSaturation;
	}

	@Override
	protected AvailabilityState getState(ApplicationAvailability applicationAvailability) {
		AvailabilityState state = super.getState(applicationAvailability);
		if (state == ReadinessState.ACCEPTING_TRAFFIC && refusesTraffic()) {
			return ReadinessState.REFUSING_TRAFFIC;
		}
		return state;
	}

	private boolean refusesTraffic() {
		for (Device device : this.registry.devices()) {
			if (this.onDeviceFailure && !device.isHealthy()) {
				return true;
			}
			if (this.onSaturation && isSaturated(device.streamPool())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a pool is saturated: borrowers wait for a stream now, which only a bounded
	 * pool at its bound makes them do.
	 * @param pool the pool
	 * @return whether the pool is saturated
	 */
	static boolean isSaturated(StreamPool pool) {
		return pool.waiting() > 0;
	}

}
