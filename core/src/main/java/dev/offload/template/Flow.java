package dev.offload.template;

import java.util.Objects;

import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;

/**
 * The common path in a session, in few lines: copy arrays in, launch, copy results out.
 * <pre>{@code
 * float[] y = template.execute((session) -> {
 *     Flow flow = Flow.of(session);
 *     DeviceBuffer x = flow.upload(input);
 *     flow.launch(SCALE, LaunchConfig.forThreads(n, 256), n, 2f, x);
 *     return flow.downloadFloats(x, n);
 * });
 * }</pre>
 * Buffers come from the session and go back when it ends.
 */
public final class Flow {

	private final OffloadSession session;

	private Flow(OffloadSession session) {
		this.session = session;
	}

	/**
	 * Starts a flow in a session.
	 * @param session the session
	 * @return the flow
	 */
	public static Flow of(OffloadSession session) {
		return new Flow(Objects.requireNonNull(session, "session must not be null"));
	}

	/**
	 * Returns the flow's session.
	 * @return the session
	 */
	public OffloadSession session() {
		return this.session;
	}

	/**
	 * Enqueues copying floats to a new device buffer.
	 * @param values the values
	 * @return the device buffer, owned by the session
	 */
	public DeviceBuffer upload(float[] values) {
		return toDevice(this.session.hostBuffer(values));
	}

	/**
	 * Enqueues copying doubles to a new device buffer.
	 * @param values the values
	 * @return the device buffer, owned by the session
	 */
	public DeviceBuffer upload(double[] values) {
		return toDevice(this.session.hostBuffer(values));
	}

	/**
	 * Enqueues copying ints to a new device buffer.
	 * @param values the values
	 * @return the device buffer, owned by the session
	 */
	public DeviceBuffer upload(int[] values) {
		return toDevice(this.session.allocateHost(bytes(values.length, Integer.BYTES)).putInts(0, values));
	}

	private DeviceBuffer toDevice(HostBuffer host) {
		DeviceBuffer device = this.session.allocate(host.size());
		this.session.copy(host, device);
		return device;
	}

	/**
	 * Allocates a device buffer for {@code count} floats.
	 * @param count the number of floats
	 * @return the buffer, owned by the session
	 */
	public DeviceBuffer allocateFloats(int count) {
		return this.session.allocate(bytes(count, Float.BYTES));
	}

	/**
	 * Allocates a device buffer for {@code count} doubles.
	 * @param count the number of doubles
	 * @return the buffer, owned by the session
	 */
	public DeviceBuffer allocateDoubles(int count) {
		return this.session.allocate(bytes(count, Double.BYTES));
	}

	/**
	 * Enqueues a launch of a kernel on the session's device, loading its module there if needed.
	 * @param kernel the kernel
	 * @param config the grid and block sizes
	 * @param args the kernel's arguments
	 * @return this flow
	 */
	public Flow launch(KernelRef kernel, LaunchConfig config, Object... args) {
		this.session.launch(kernel, config, args);
		return this;
	}

	/**
	 * Copies the first {@code count} floats of a device buffer back, waiting for the session's work.
	 * @param source the device buffer
	 * @param count the number of floats
	 * @return the floats
	 * @throws dev.offload.spi.BackendException if the session's work failed
	 */
	public float[] downloadFloats(DeviceBuffer source, int count) {
		return download(source, count, Float.BYTES).getFloats(0, new float[count]);
	}

	/**
	 * Copies the first {@code count} doubles of a device buffer back, waiting for the session's work.
	 * @param source the device buffer
	 * @param count the number of doubles
	 * @return the doubles
	 * @throws dev.offload.spi.BackendException if the session's work failed
	 */
	public double[] downloadDoubles(DeviceBuffer source, int count) {
		return download(source, count, Double.BYTES).getDoubles(0, new double[count]);
	}

	private HostBuffer download(DeviceBuffer source, int count, int width) {
		HostBuffer host = this.session.allocateHost(bytes(count, width));
		this.session.copy(source, 0, host, 0, (long) count * width);
		this.session.synchronize();
		return host;
	}

	static long bytes(int count, int width) {
		if (count < 0) {
			throw new IllegalArgumentException("count must be at least 0, was " + count);
		}
		// A buffer holds at least one byte; an empty array still gets one.
		return Math.max(1, (long) count * width);
	}

}
