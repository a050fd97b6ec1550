package dev.offload.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The GPU's own reports of its faults (NVIDIA's Xid errors, through NVML), opened by
 * {@link Backend#openGpuFaultSource(java.util.List)} for a registry's devices. A
 * registry's watcher thread is its only reader; {@link #close()} is called from another
 * thread once that reader has stopped.
 */
public interface GpuFaultSource extends AutoCloseable {

	/**
	 * Waits for the next report.
	 * @param timeout the longest wait, so that the reader can stop
	 * @return the report, or {@code null} if none came in time
	 * @throws InterruptedException if the reading thread was interrupted
	 */
	@Nullable Report next(Duration timeout) throws InterruptedException;

	/**
	 * Describes the source for the health details and the startup log.
	 * @return e.g. {@code "NVML (driver 570.124.06), devices [0, 1]"}
	 */
	String description();

	/**
	 * Releases the source (NVML's event set and its reference to the library).
	 */
	@Override
	void close();

	/**
	 * One fault the GPU reported.
	 *
	 * @param deviceId the id of the registry's device it happened on
	 * @param xid the Xid number; NVML's double-bit ECC events are reported as Xid 48, its
	 * DRAM retirement events as Xid 63 and retirement failures as Xid 64, as the driver
	 * logs them
	 * @param time when the report was read
	 */
	record Report(int deviceId, int xid, Instant time) {

		/**
		 * Creates a report.
		 * @param deviceId the id of the registry's device it happened on
		 * @param xid the Xid number
		 * @param time when the report was read
		 */
		public Report {
			Objects.requireNonNull(time, "time must not be null");
		}

	}

}
