package dev.offload.template;

import java.util.Objects;

import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;

/**
 * The common path in a session, in few lines: copy arrays in, launch, copy results out.
 * Every array type it uploads ({@code float[]}, {@code double[]}, {@code int[]},
 * {@code long[]}, {@code byte[]}) it also downloads. <pre>{@code
 * float[] y = template.execute((session) -> {
 *     Flow flow = Flow.of(session);
 *     DeviceBuffer x = flow.upload(input);
 *     flow.launch(SCALE, LaunchConfig.forThreads(n, 256), n, 2f, x, x);
 *     return flow.downloadFloats(x, n);
 * });
 * }</pre> Buffers come from the session and go back when it ends.
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
		return upload(ElementType.FLOAT, values);
	}

	/**
	 * Enqueues copying doubles to a new device buffer.
	 * @param values the values
	 * @return the device buffer, owned by the session
	 */
	public DeviceBuffer upload(double[] values) {
		return upload(ElementType.DOUBLE, values);
	}

	/**
	 * Enqueues copying ints to a new device buffer.
	 * @param values the values
	 * @return the device buffer, owned by the session
	 */
	public DeviceBuffer upload(int[] values) {
		return upload(ElementType.INT, values);
	}

	/**
	 * Enqueues copying longs to a new device buffer.
	 * @param values the values
	 * @return the device buffer, owned by the session
	 */
	public DeviceBuffer upload(long[] values) {
		return upload(ElementType.LONG, values);
	}

	/**
	 * Enqueues copying bytes to a new device buffer.
	 * @param values the values
	 * @return the device buffer, owned by the session
	 */
	public DeviceBuffer upload(byte[] values) {
		return upload(ElementType.BYTE, values);
	}

	DeviceBuffer upload(ElementType type, Object values) {
		// The staging is the flow's own: closed, it goes back at the session's next
		// synchronize instead of when the session ends.
		try (HostBuffer staged = stage(type, values)) {
			return upload(staged);
		}
	}

	/**
	 * Writes values to a new page-locked buffer of the session.
	 */
	HostBuffer stage(ElementType type, Object values) {
		return stage(this.session, type, values);
	}

	static HostBuffer stage(OffloadSession session, ElementType type, Object values) {
		if (values == null) {
			throw new IllegalArgumentException("upload needs an array of " + type.plural() + ", was null");
		}
		HostBuffer host = session.allocateHost(type.bufferBytes(type.length(values)));
		type.write(host, values);
		return host;
	}

	/**
	 * Enqueues copying a staged buffer to a new device buffer of its size. Once that copy
	 * is enqueued, later work on the session's stream may write to the staged buffer: the
	 * stream's order has the copy read it first.
	 */
	DeviceBuffer upload(HostBuffer staged) {
		return upload(this.session, staged);
	}

	static DeviceBuffer upload(OffloadSession session, HostBuffer staged) {
		DeviceBuffer device = session.allocate(staged.size());
		session.copy(staged, device);
		return device;
	}

	/**
	 * Allocates a device buffer for {@code count} floats.
	 * @param count the number of floats
	 * @return the buffer, owned by the session
	 */
	public DeviceBuffer allocateFloats(int count) {
		return allocate(ElementType.FLOAT, count);
	}

	/**
	 * Allocates a device buffer for {@code count} doubles.
	 * @param count the number of doubles
	 * @return the buffer, owned by the session
	 */
	public DeviceBuffer allocateDoubles(int count) {
		return allocate(ElementType.DOUBLE, count);
	}

	/**
	 * Allocates a device buffer for {@code count} ints.
	 * @param count the number of ints
	 * @return the buffer, owned by the session
	 */
	public DeviceBuffer allocateInts(int count) {
		return allocate(ElementType.INT, count);
	}

	/**
	 * Allocates a device buffer for {@code count} longs.
	 * @param count the number of longs
	 * @return the buffer, owned by the session
	 */
	public DeviceBuffer allocateLongs(int count) {
		return allocate(ElementType.LONG, count);
	}

	/**
	 * Allocates a device buffer for {@code count} bytes.
	 * @param count the number of bytes
	 * @return the buffer, owned by the session
	 */
	public DeviceBuffer allocateBytes(int count) {
		return allocate(ElementType.BYTE, count);
	}

	DeviceBuffer allocate(ElementType type, int count) {
		return allocate(this.session, type, count);
	}

	static DeviceBuffer allocate(OffloadSession session, ElementType type, int count) {
		return session.allocate(type.bufferBytes(count));
	}

	/**
	 * Enqueues a launch of a kernel on the session's device, loading its module there if
	 * needed.
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
	 * Copies the first {@code count} floats of a device buffer back, waiting for the
	 * session's work.
	 * @param source the device buffer
	 * @param count the number of floats
	 * @return the floats
	 * @throws dev.offload.BackendException if the session's work failed
	 */
	public float[] downloadFloats(DeviceBuffer source, int count) {
		return (float[]) download(ElementType.FLOAT, source, count);
	}

	/**
	 * Copies the first {@code count} doubles of a device buffer back, waiting for the
	 * session's work.
	 * @param source the device buffer
	 * @param count the number of doubles
	 * @return the doubles
	 * @throws dev.offload.BackendException if the session's work failed
	 */
	public double[] downloadDoubles(DeviceBuffer source, int count) {
		return (double[]) download(ElementType.DOUBLE, source, count);
	}

	/**
	 * Copies the first {@code count} ints of a device buffer back, waiting for the
	 * session's work.
	 * @param source the device buffer
	 * @param count the number of ints
	 * @return the ints
	 * @throws dev.offload.BackendException if the session's work failed
	 */
	public int[] downloadInts(DeviceBuffer source, int count) {
		return (int[]) download(ElementType.INT, source, count);
	}

	/**
	 * Copies the first {@code count} longs of a device buffer back, waiting for the
	 * session's work.
	 * @param source the device buffer
	 * @param count the number of longs
	 * @return the longs
	 * @throws dev.offload.BackendException if the session's work failed
	 */
	public long[] downloadLongs(DeviceBuffer source, int count) {
		return (long[]) download(ElementType.LONG, source, count);
	}

	/**
	 * Copies the first {@code count} bytes of a device buffer back, waiting for the
	 * session's work.
	 * @param source the device buffer
	 * @param count the number of bytes
	 * @return the bytes
	 * @throws dev.offload.BackendException if the session's work failed
	 */
	public byte[] downloadBytes(DeviceBuffer source, int count) {
		return (byte[]) download(ElementType.BYTE, source, count);
	}

	private Object download(ElementType type, DeviceBuffer source, int count) {
		try (HostBuffer host = this.session.allocateHost(type.bufferBytes(count))) {
			copyBack(type, source, host, count);
			this.session.synchronize();
			Object array = type.newArray(count);
			type.read(host, array);
			return array;
		}
	}

	/**
	 * Enqueues copying the first {@code count} elements of a device buffer to a host
	 * buffer.
	 */
	void copyBack(ElementType type, DeviceBuffer source, HostBuffer target, int count) {
		copyBack(this.session, type, source, target, count);
	}

	static void copyBack(OffloadSession session, ElementType type, DeviceBuffer source, HostBuffer target, int count) {
		if (source == null) {
			throw new IllegalArgumentException("download needs a device buffer, was null");
		}
		session.copy(source, 0, target, 0, type.bytes(count));
	}

}
