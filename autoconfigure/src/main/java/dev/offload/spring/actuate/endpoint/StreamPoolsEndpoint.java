package dev.offload.spring.actuate.endpoint;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.StreamPoolStatistics;
import dev.offload.leak.LeakDetector;
import dev.offload.spi.BackendSelection;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;

/**
 * {@link Endpoint @Endpoint} that shows each device of a {@link DeviceRegistry} and how
 * full its stream pool is: {@code /actuator/streampools} for all devices,
 * {@code /actuator/streampools/{device}} for one.
 */
@Endpoint(id = "streampools")
public class StreamPoolsEndpoint {

	private final DeviceRegistry registry;

	private final @Nullable LeakDetector leakDetector;

	private final @Nullable BackendSelection selection;

	/**
	 * Creates an endpoint.
	 * @param registry the devices to show
	 * @param leakDetector the leak detector whose counts to show, or {@code null} if leak
	 * detection is off
	 */
	public StreamPoolsEndpoint(DeviceRegistry registry, @Nullable LeakDetector leakDetector) {
		this(registry, leakDetector, null);
	}

	/**
	 * Creates an endpoint that also says why the backend was chosen.
	 * @param registry the devices to show
	 * @param leakDetector the leak detector whose counts to show, or {@code null} if leak
	 * detection is off
	 * @param selection how the backend was chosen, or {@code null} if the application
	 * chose it itself
	 */
	public StreamPoolsEndpoint(DeviceRegistry registry, @Nullable LeakDetector leakDetector,
			@Nullable BackendSelection selection) {
		this.registry = registry;
		this.leakDetector = (leakDetector != null && leakDetector.isEnabled()) ? leakDetector : null;
		this.selection = selection;
	}

	/**
	 * Describes every device.
	 * @return the backend and the devices
	 */
	@ReadOperation
	public StreamPoolsDescriptor streamPools() {
		List<DeviceDescriptor> devices = this.registry.devices().stream().map(this::describe).toList();
		Duration threshold = (this.leakDetector != null) ? this.leakDetector.threshold() : null;
		String reason = (this.selection != null) ? this.selection.reason() : null;
		return new StreamPoolsDescriptor(this.registry.backend().name(), reason, this.registry.isClosed(),
				(threshold != null) ? threshold.toString() : null, devices);
	}

	/**
	 * Describes one device.
	 * @param device the device's id
	 * @return the device, or {@code null} (a 404) if there is no such device
	 */
	@ReadOperation
	public @Nullable DeviceDescriptor device(@Selector int device) {
		return this.registry.ids().contains(device) ? describe(this.registry.device(device)) : null;
	}

	private DeviceDescriptor describe(Device device) {
		String error = device.failure().map(StreamPoolsEndpoint::errorText).orElse(null);
		long leaked = (this.leakDetector != null) ? this.leakDetector.leakedSessions(device.id()) : 0;
		return new DeviceDescriptor(device.id(), device.name(), device.backendName(), device.isHealthy(), error,
				device.activeSessions(), leaked, PoolDescriptor.of(device.streamPool().statistics()),
				SharingDescriptor.of(device.info()));
	}

	static String errorText(Throwable failure) {
		return (failure.getMessage() != null) ? failure.getMessage() : failure.getClass().getName();
	}

	/**
	 * Every device of the registry.
	 *
	 * @param backend the backend running the devices ({@code cuda} or {@code host})
	 * @param backendReason why that backend: the probe's message, or {@code null} if the
	 * application chose it
	 * @param closed whether the registry was shut down
	 * @param leakDetectionThreshold the leak detection threshold as an ISO-8601 duration,
	 * or {@code null} if leak detection is off
	 * @param devices the devices, in id order
	 */
	public record StreamPoolsDescriptor(String backend, @Nullable String backendReason, boolean closed,
			@Nullable String leakDetectionThreshold, List<DeviceDescriptor> devices) implements OperationResponseBody {

	}

	/**
	 * One device and its stream pool.
	 *
	 * @param id the device's id
	 * @param name the device's name
	 * @param backend the backend running it
	 * @param healthy whether it can take work
	 * @param error the sticky error that failed it, or {@code null} while it is healthy
	 * @param activeSessions sessions opened and not yet ended
	 * @param leakedSessions sessions that stayed open longer than the leak detection
	 * threshold since the start (0 when leak detection is off)
	 * @param pool the state of its stream pool
	 * @param sharing how the device is shared with other processes
	 */
	public record DeviceDescriptor(int id, String name, String backend, boolean healthy, @Nullable String error,
			int activeSessions, long leakedSessions, PoolDescriptor pool,
			SharingDescriptor sharing) implements OperationResponseBody {

	}

	/**
	 * How a device is shared with other processes: MIG, MPS, time-slicing, or none of
	 * them ({@code exclusive}, always so on the host emulation).
	 *
	 * @param mode {@code exclusive}, or the modes that hold joined by {@code +}
	 * ({@code mig}, {@code mps}, {@code time-slicing})
	 * @param mig the MIG instance, or {@code null} if the device is not one
	 * @param mps the MPS client settings, or {@code null} if the process is no MPS client
	 * @param timeSlicing the time-slicing the deployment declared, or {@code null}
	 * @param usableMemoryBytes the device memory the process should use: the total, or
	 * less under MPS's pinned limit or a declared time-slicing's share
	 * ({@link DeviceInfo#usableMemoryBytes()})
	 * @param evidence how each mode was recognised, or why a configured one does not hold
	 */
	public record SharingDescriptor(String mode, GpuSharing.@Nullable Mig mig, GpuSharing.@Nullable Mps mps,
			GpuSharing.@Nullable TimeSlicing timeSlicing, long usableMemoryBytes, List<String> evidence) {

		static SharingDescriptor of(DeviceInfo info) {
			GpuSharing sharing = info.sharing();
			return new SharingDescriptor(sharing.mode(), sharing.mig(), sharing.mps(), sharing.timeSlicing(),
					info.usableMemoryBytes(), sharing.evidence());
		}

	}

	/**
	 * The state of a stream pool.
	 *
	 * @param size streams alive, idle or lent
	 * @param inUse streams lent to sessions
	 * @param idle streams waiting in the pool
	 * @param peakInUse the most streams lent at once since the start
	 * @param max the pool's bound, or {@code null} if it is unbounded
	 * @param bounded whether the pool has a bound
	 * @param waiting borrowers waiting for a stream (only a bounded pool makes them wait)
	 * @param borrows streams lent since the start
	 * @param grows times the pool grew beyond its initial size
	 * @param created streams created since the start
	 * @param destroyed streams destroyed since the start
	 * @param discarded streams destroyed because their work failed
	 * @param timeouts borrows that gave up after the borrow timeout
	 * @param saturated whether a borrower waits for a stream now
	 * @param oldestWait how long the borrower that has waited longest has waited so far,
	 * as an ISO-8601 duration
	 * @param pendingCompletions sessions handed to the completion thread whose work is
	 * not done yet
	 * @param sessionTimeouts sessions whose deadline passed while their caller waited
	 * @param byPriority size, in use and idle per priority class that has streams
	 * ({@code NORMAL}, {@code HIGH})
	 */
	public record PoolDescriptor(int size, int inUse, int idle, int peakInUse, @Nullable Integer max, boolean bounded,
			int waiting, long borrows, long grows, long created, long destroyed, long discarded, long timeouts,
			boolean saturated, String oldestWait, int pendingCompletions, long sessionTimeouts,
			Map<String, PriorityDescriptor> byPriority) {

		static PoolDescriptor of(StreamPoolStatistics statistics) {
			Map<String, PriorityDescriptor> byPriority = new TreeMap<>();
			statistics.byPriority()
				.forEach((priority, value) -> byPriority.put(priority.name(),
						new PriorityDescriptor(value.size(), value.inUse(), value.idle())));
			return new PoolDescriptor(statistics.size(), statistics.inUse(), statistics.idle(), statistics.peakInUse(),
					statistics.isBounded() ? statistics.maxSize() : null, statistics.isBounded(), statistics.waiting(),
					statistics.borrows(), statistics.grows(), statistics.created(), statistics.destroyed(),
					statistics.discarded(), statistics.timeouts(), statistics.waiting() > 0,
					statistics.oldestWait().toString(), statistics.pendingCompletions(), statistics.sessionTimeouts(),
					Collections.unmodifiableMap(byPriority));
		}

	}

	/**
	 * The streams of one priority class.
	 *
	 * @param size streams alive
	 * @param inUse streams lent
	 * @param idle streams waiting in the pool
	 */
	public record PriorityDescriptor(int size, int inUse, int idle) {

	}

}
