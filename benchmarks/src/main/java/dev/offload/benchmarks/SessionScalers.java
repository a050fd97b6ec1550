package dev.offload.benchmarks;

import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.Kernel;
import dev.offload.OffloadSession;
import dev.offload.benchmarks.support.ScaleKernel;
import dev.offload.benchmarks.support.Scaler;
import dev.offload.kernel.LaunchConfig;
import dev.offload.template.OffloadTemplate;

/**
 * The fluent call's scale work written on the session API, for the benchmarks that
 * measure the fluent layer against it ({@link FluentCallBenchmark},
 * {@link FluentCallBreakdown}, the fluent call's JMH overhead benchmark): a kernel
 * {@code scale(int n, float a, const float* in, float* out)} launched on {@code n}
 * threads in blocks of {@value ScaleKernel#BLOCK}.
 */
public final class SessionScalers {

	private SessionScalers() {
	}

	/**
	 * Returns a scaler with its buffers allocated once, the hand-written code's shape.
	 * @param device the device
	 * @param kernel the scale kernel on that device
	 * @param n the largest array
	 * @return the scaler, which frees its buffers when closed
	 */
	public static Scaler buffersOnce(Device device, Kernel kernel, int n) {
		return new SessionScaler(device, kernel, n, false);
	}

	/**
	 * Returns a scaler with one session kept open and its buffers allocated once in it: a
	 * request is the session's enqueues and synchronize alone.
	 * @param device the device
	 * @param kernel the scale kernel on that device
	 * @param n the largest array
	 * @return the scaler, which ends its session when closed
	 */
	public static Scaler sessionKept(Device device, Kernel kernel, int n) {
		return new SessionScaler(device, kernel, n, true);
	}

	/**
	 * Returns a scaler that takes its buffers per call, as the fluent call does.
	 * @param device the device
	 * @param kernel the scale kernel on that device
	 * @param reserve whether to reserve the call's device memory up front
	 * @param template the template whose {@code execute} gives the session, or
	 * {@code null} to open one on the device
	 * @return the scaler
	 */
	public static Scaler buffersPerCall(Device device, Kernel kernel, boolean reserve,
			@Nullable OffloadTemplate template) {
		return new PerCallScaler(device, kernel, reserve, template);
	}

	/**
	 * The hand-written code on the session API: buffers allocated once per thread.
	 */
	private static final class SessionScaler implements Scaler {

		private final Device device;

		private final Kernel kernel;

		private final HostBuffer in;

		private final HostBuffer out;

		private final DeviceBuffer deviceIn;

		private final DeviceBuffer deviceOut;

		/** The session kept for every call, or {@code null} for a session per call. */
		private final @Nullable OffloadSession kept;

		SessionScaler(Device device, Kernel kernel, int n, boolean keepSession) {
			this.device = device;
			this.kernel = kernel;
			long bytes = Math.max(1, (long) n * Float.BYTES);
			if (keepSession) {
				OffloadSession session = device.openSession();
				this.kept = session;
				this.in = session.allocateHost(bytes);
				this.out = session.allocateHost(bytes);
				this.deviceIn = session.allocate(bytes);
				this.deviceOut = session.allocate(bytes);
			}
			else {
				this.kept = null;
				this.in = device.allocateHost(bytes);
				this.out = device.allocateHost(bytes);
				this.deviceIn = device.allocate(bytes);
				this.deviceOut = device.allocate(bytes);
			}
		}

		@Override
		public float[] scale(float[] x, float a) {
			float[] result = new float[x.length];
			OffloadSession session = (this.kept != null) ? this.kept : this.device.openSession();
			try {
				this.in.putFloats(0, x);
				long bytes = (long) x.length * Float.BYTES;
				session.copy(this.in, 0, this.deviceIn, 0, bytes);
				session.launch(this.kernel, LaunchConfig.forThreads(x.length, ScaleKernel.BLOCK), x.length, a,
						this.deviceIn, this.deviceOut);
				session.copy(this.deviceOut, 0, this.out, 0, bytes);
				session.synchronize();
				this.out.getFloats(0, result);
			}
			finally {
				if (this.kept == null) {
					session.close();
				}
			}
			return result;
		}

		@Override
		public void close() {
			this.in.close();
			this.out.close();
			this.deviceIn.close();
			this.deviceOut.close();
			if (this.kept != null) {
				this.kept.close();
			}
		}

	}

	/**
	 * The fluent call's work written on the session API: buffers taken per call, the
	 * memory reserved up front or not, the session opened by the template or not.
	 */
	private static final class PerCallScaler implements Scaler {

		private final Device device;

		private final Kernel kernel;

		private final boolean reserve;

		private final @Nullable OffloadTemplate template;

		PerCallScaler(Device device, Kernel kernel, boolean reserve, @Nullable OffloadTemplate template) {
			this.device = device;
			this.kernel = kernel;
			this.reserve = reserve;
			this.template = template;
		}

		@Override
		public float[] scale(float[] x, float a) {
			if (this.template != null) {
				return this.template.execute((session) -> scale(session, x, a));
			}
			try (OffloadSession session = this.device.openSession()) {
				return scale(session, x, a);
			}
		}

		private float[] scale(OffloadSession session, float[] x, float a) {
			int n = x.length;
			long bytes = (long) n * Float.BYTES;
			if (this.reserve) {
				session.reserveMemory(2 * Device.allocationSize(bytes));
			}
			HostBuffer staging = session.allocateHost(bytes);
			staging.putFloats(0, x);
			DeviceBuffer in = session.allocate(bytes);
			session.copy(staging, in);
			DeviceBuffer out = session.allocate(bytes);
			session.launch(this.kernel, LaunchConfig.forThreads(n, ScaleKernel.BLOCK), n, a, in, out);
			session.copy(out, 0, staging, 0, bytes);
			session.synchronize();
			return staging.getFloats(0, new float[n]);
		}

	}

}
