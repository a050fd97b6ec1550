package dev.offload.template;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;

/**
 * One kernel launch with its copies, built in the order of the kernel's parameters and
 * run by an {@link OffloadTemplate}: each {@code arg}, {@code in} and {@code out} call
 * appends the next parameter. <pre>{@code
 * // __global__ void scale(int n, float a, const float* in, float* out)
 * float[] y = template.kernel(SCALE)
 *     .threads(n)              // one thread per element, blocks of 256
 *     .arg(n).arg(2f)          // scalars
 *     .in(x)                   // copied to a device buffer before the launch
 *     .outFloats(n)            // a device buffer, copied back after the launch
 *     .run()
 *     .floats(0);              // the first output
 * }</pre> {@link #run()} waits for the work, {@link #runAsync()} returns a future. Both
 * use the session bound to the thread (by {@link Offload @Offload}) when there is one,
 * else a session of their own, as
 * {@link OffloadTemplate#execute(OffloadAttributes, SessionCallback)} does. Device
 * buffers the application owns ({@link Device#allocate(long)}) can be passed with
 * {@link #arg(DeviceBuffer)} and reused from call to call; the call then runs on their
 * device. Arrays are read when the call runs. A call is not thread-safe; it may be run
 * again.
 */
public final class KernelCall {

	/**
	 * The block size {@link #threads(long)} uses: a multiple of the warp size that suits
	 * most kernels.
	 */
	public static final int DEFAULT_BLOCK_SIZE = 256;

	/** Room for a usual kernel's parameters without growing. */
	private static final int INITIAL_PARAMETERS = 8;

	private final OffloadTemplate template;

	private final KernelRef kernel;

	/**
	 * The parameters in {@code parameters[0..parameterCount)}, in order: a boxed scalar,
	 * a device buffer of the application's, a primitive array to copy in, or an
	 * {@link Output}.
	 */
	private Object[] parameters = new Object[INITIAL_PARAMETERS];

	private int parameterCount;

	private int outputCount;

	/**
	 * The device memory of the inputs and outputs, summed as they are appended: reserved
	 * before any of them is allocated, so that the call waits for the budget once.
	 */
	private long deviceBytes;

	/** Whether a parameter is a device buffer of the application's. */
	private boolean ownBuffers;

	private @Nullable LaunchConfig config;

	private OffloadAttributes attributes = OffloadAttributes.DEFAULTS;

	KernelCall(OffloadTemplate template, KernelRef kernel) {
		this.template = template;
		this.kernel = Objects.requireNonNull(kernel, "kernel must not be null");
	}

	/**
	 * Launches at least {@code threads} threads in blocks of {@value #DEFAULT_BLOCK_SIZE}
	 * (one whole block for fewer: kernels may rely on their block size); give a smaller
	 * block with {@link #threads(long, int)}.
	 * @param threads the number of threads, usually the number of elements; at least 1
	 * @return this call
	 * @throws IllegalArgumentException if {@code threads} is less than 1
	 */
	public KernelCall threads(long threads) {
		return threads(threads, DEFAULT_BLOCK_SIZE);
	}

	/**
	 * Launches at least {@code threads} threads in blocks of {@code blockSize}.
	 * @param threads the number of threads; at least 1
	 * @param blockSize threads per block, from 1 to 1024
	 * @return this call
	 * @throws IllegalArgumentException if a size is out of range
	 */
	public KernelCall threads(long threads, int blockSize) {
		return config(LaunchConfig.forThreads(threads, blockSize));
	}

	/**
	 * Launches with an explicit grid, block and shared memory size.
	 * @param config the launch configuration
	 * @return this call
	 */
	public KernelCall config(LaunchConfig config) {
		this.config = Objects.requireNonNull(config, "config must not be null");
		return this;
	}

	/**
	 * Runs on the device with id {@code deviceId} instead of the least busy one.
	 * @param deviceId the device's id
	 * @return this call
	 */
	public KernelCall device(int deviceId) {
		return attributes(this.attributes.withDevice(deviceId));
	}

	/**
	 * Runs in the session {@code attributes} ask for (device, priority, propagation), as
	 * {@link OffloadTemplate#execute(OffloadAttributes, SessionCallback)}.
	 * @param attributes the attributes
	 * @return this call
	 */
	public KernelCall attributes(OffloadAttributes attributes) {
		this.attributes = Objects.requireNonNull(attributes, "attributes must not be null");
		return this;
	}

	/**
	 * Appends an {@code int} parameter.
	 * @param value the value
	 * @return this call
	 */
	public KernelCall arg(int value) {
		return append(value);
	}

	/**
	 * Appends a {@code long} parameter.
	 * @param value the value
	 * @return this call
	 */
	public KernelCall arg(long value) {
		return append(value);
	}

	/**
	 * Appends a {@code float} parameter.
	 * @param value the value
	 * @return this call
	 */
	public KernelCall arg(float value) {
		return append(value);
	}

	/**
	 * Appends a {@code double} parameter.
	 * @param value the value
	 * @return this call
	 */
	public KernelCall arg(double value) {
		return append(value);
	}

	/**
	 * Appends a pointer parameter to a device buffer the application owns and keeps
	 * across calls; the call runs on the buffer's device.
	 * @param buffer the buffer, open, on the same device as the call's other buffers
	 * @return this call
	 * @throws IllegalArgumentException if the buffer is {@code null}
	 */
	public KernelCall arg(DeviceBuffer buffer) {
		if (buffer == null) {
			throw new IllegalArgumentException("Parameter " + this.parameterCount + " of " + this.kernel.name()
					+ ": arg needs a device buffer, was null");
		}
		this.ownBuffers = true;
		return append(buffer);
	}

	/**
	 * Appends a pointer parameter to a device buffer that holds a copy of {@code values}.
	 * @param values the floats
	 * @return this call
	 */
	public KernelCall in(float[] values) {
		return input(ElementType.FLOAT, values);
	}

	/**
	 * Appends a pointer parameter to a device buffer that holds a copy of {@code values}.
	 * @param values the doubles
	 * @return this call
	 */
	public KernelCall in(double[] values) {
		return input(ElementType.DOUBLE, values);
	}

	/**
	 * Appends a pointer parameter to a device buffer that holds a copy of {@code values}.
	 * @param values the ints
	 * @return this call
	 */
	public KernelCall in(int[] values) {
		return input(ElementType.INT, values);
	}

	/**
	 * Appends a pointer parameter to a device buffer that holds a copy of {@code values}.
	 * @param values the longs
	 * @return this call
	 */
	public KernelCall in(long[] values) {
		return input(ElementType.LONG, values);
	}

	/**
	 * Appends a pointer parameter to a device buffer that holds a copy of {@code values}.
	 * @param values the bytes
	 * @return this call
	 */
	public KernelCall in(byte[] values) {
		return input(ElementType.BYTE, values);
	}

	/**
	 * Appends a pointer parameter to a device buffer of {@code count} floats, read back
	 * as the next output ({@link KernelResult#floats(int)}).
	 * @param count the number of floats
	 * @return this call
	 */
	public KernelCall outFloats(int count) {
		return output(ElementType.FLOAT, count);
	}

	/**
	 * Appends a pointer parameter to a device buffer of {@code count} doubles, read back
	 * as the next output ({@link KernelResult#doubles(int)}).
	 * @param count the number of doubles
	 * @return this call
	 */
	public KernelCall outDoubles(int count) {
		return output(ElementType.DOUBLE, count);
	}

	/**
	 * Appends a pointer parameter to a device buffer of {@code count} ints, read back as
	 * the next output ({@link KernelResult#ints(int)}).
	 * @param count the number of ints
	 * @return this call
	 */
	public KernelCall outInts(int count) {
		return output(ElementType.INT, count);
	}

	/**
	 * Appends a pointer parameter to a device buffer of {@code count} longs, read back as
	 * the next output ({@link KernelResult#longs(int)}).
	 * @param count the number of longs
	 * @return this call
	 */
	public KernelCall outLongs(int count) {
		return output(ElementType.LONG, count);
	}

	/**
	 * Appends a pointer parameter to a device buffer of {@code count} bytes, read back as
	 * the next output ({@link KernelResult#bytes(int)}).
	 * @param count the number of bytes
	 * @return this call
	 */
	public KernelCall outBytes(int count) {
		return output(ElementType.BYTE, count);
	}

	/**
	 * Copies the inputs in, launches, copies the outputs back and waits for it all.
	 * @return the outputs, in the order of the {@code out} calls
	 * @throws IllegalStateException if no launch geometry was given
	 * @throws IllegalArgumentException if the parameters do not fit the kernel, before
	 * anything runs
	 * @throws dev.offload.BackendException if the work failed on the device
	 */
	public KernelResult run() {
		OffloadAttributes resolved = resolveAttributes();
		return this.template.execute(resolved, (session) -> {
			session.reserveMemory(this.deviceBytes);
			Object[] args = new Object[this.parameterCount];
			HostBuffer[] hosts = new HostBuffer[args.length];
			enqueue(session, args, hosts);
			for (int i = 0; i < args.length; i++) {
				if (this.parameters[i] instanceof Output output) {
					long bytes = output.type.bufferBytes(output.count);
					// An input's staging, read by its copy before the launch, takes an
					// output's copy after it: one page-locked block less to take and give
					// back.
					HostBuffer reused = takeStaged(hosts, bytes);
					hosts[i] = (reused != null) ? reused : session.allocateHost(bytes);
				}
			}
			copyBack(session, args, hosts);
			// Made while the device works: once it is done, only the copies out are
			// left.
			KernelResult result = new KernelResult(session.device(), newArrays(new Object[this.outputCount]));
			session.synchronize();
			int output = 0;
			for (int i = 0; i < args.length; i++) {
				if (this.parameters[i] instanceof Output) {
					result.read(output++, Objects.requireNonNull(hosts[i]));
				}
			}
			// In a bound session (an @Offload method calling in a loop) the next call
			// draws what this one closed, instead of the session holding every call's.
			closeSessionBuffers(args);
			closeAll(hosts);
			return result;
		});
	}

	private static void closeAll(@Nullable HostBuffer[] hosts) {
		for (HostBuffer host : hosts) {
			if (host != null) {
				host.close();
			}
		}
	}

	/**
	 * Closes the device buffers the call allocated in its session (not the application's
	 * own).
	 */
	private void closeSessionBuffers(@Nullable Object[] args) {
		for (int i = 0; i < args.length; i++) {
			if (args[i] instanceof DeviceBuffer buffer && isCopied(this.parameters[i])) {
				buffer.close();
			}
		}
	}

	/** Whether a parameter is an input or an output, copied through a session buffer. */
	private static boolean isCopied(@Nullable Object parameter) {
		return parameter instanceof Output || ElementType.ofArray(parameter) != null;
	}

	/**
	 * Does what {@link #run()} does without blocking: enqueues on the calling thread and
	 * returns a future completed with the outputs once the work is done, or with its
	 * failure. The outputs are copied to page-locked buffers of the device, read and
	 * given back when the work is done. The future completes on the registry's completion
	 * executor, or on a thread that waits for it in {@code join()} or {@code get()},
	 * which reads the outputs itself; never on the device's completion thread.
	 * @return the outputs' future
	 * @throws IllegalStateException if no launch geometry was given
	 * @throws IllegalArgumentException if the parameters do not fit the kernel
	 */
	public CompletableFuture<KernelResult> runAsync() {
		OffloadAttributes resolved = resolveAttributes();
		// Filled by the callback, on the calling thread: the completion reads nothing of
		// this call, which its caller may go on changing.
		Object[] arrays = new Object[this.outputCount];
		// Each output's page-locked buffer at its parameter's index.
		HostBuffer[] hosts = new HostBuffer[this.parameterCount];
		// The outputs are freed only once the work really ended, whatever the deadline.
		return this.template.submit(resolved, (session) -> {
			session.reserveMemory(this.deviceBytes);
			Object[] args = new Object[hosts.length];
			HostBuffer[] staged = new HostBuffer[hosts.length];
			enqueue(session, args, staged);
			for (int i = 0; i < args.length; i++) {
				if (this.parameters[i] instanceof Output output) {
					// A session's own buffers are given back before its future completes:
					// copy to the device's.
					hosts[i] = session.device().allocateHost(output.type.bufferBytes(output.count));
				}
			}
			copyBack(session, args, hosts);
			// Made while the device works: once it is done, only the copies out are
			// left.
			newArrays(arrays);
			// Closed with their work enqueued: the session gives them back once that work
			// is known done, so that a bound session's next call can draw them.
			closeSessionBuffers(args);
			closeAll(staged);
			return session.device();
		}, (done) -> readWhenDone(done, arrays, hosts));
	}

	private static CompletableFuture<KernelResult> readWhenDone(CompletableFuture<Device> done, Object[] arrays,
			@Nullable HostBuffer[] hosts) {
		// Made by done: a thread that joins the result reads it on its own thread.
		CompletableFuture<KernelResult> result = done.newIncompleteFuture();
		done.whenComplete((device, failure) -> {
			try {
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					KernelResult read = new KernelResult(device, arrays);
					int output = 0;
					for (HostBuffer host : hosts) {
						if (host != null) {
							read.read(output++, host);
						}
					}
					result.complete(read);
				}
			}
			catch (RuntimeException ex) {
				result.completeExceptionally(ex);
			}
			finally {
				closeAll(hosts);
			}
		});
		return result;
	}

	private KernelCall append(Object parameter) {
		if (this.parameterCount == this.parameters.length) {
			this.parameters = Arrays.copyOf(this.parameters, 2 * this.parameterCount);
		}
		this.parameters[this.parameterCount++] = parameter;
		return this;
	}

	private KernelCall input(ElementType type, Object values) {
		if (values == null) {
			throw new IllegalArgumentException("Parameter " + this.parameterCount + " of " + this.kernel.name()
					+ ": in needs an array of " + type.plural() + ", was null");
		}
		// An array's length never changes: its device memory is known now.
		this.deviceBytes += Device.allocationSize(type.bufferBytes(type.length(values)));
		return append(values);
	}

	private KernelCall output(ElementType type, int count) {
		if (count < 0) {
			throw new IllegalArgumentException("Parameter " + this.parameterCount + " of " + this.kernel.name()
					+ ": an output needs a count of at least 0, was " + count);
		}
		this.deviceBytes += Device.allocationSize(type.bufferBytes(count));
		this.outputCount++;
		return append(new Output(type, count));
	}

	/**
	 * Returns the attributes with the device of the application's buffers, if any.
	 */
	private OffloadAttributes resolveAttributes() {
		if (this.config == null) {
			throw new IllegalStateException("The call of kernel " + this.kernel.name()
					+ " has no launch geometry: give it threads(n) or config(LaunchConfig)");
		}
		if (!this.ownBuffers) {
			return this.attributes;
		}
		Device device = null;
		for (int i = 0; i < this.parameterCount; i++) {
			if (this.parameters[i] instanceof DeviceBuffer buffer) {
				if (device != null && buffer.device() != device) {
					throw new IllegalArgumentException("The call of kernel " + this.kernel.name()
							+ " has buffers on device " + device.id() + " and on device " + buffer.device().id());
				}
				device = buffer.device();
			}
		}
		if (device == null) {
			return this.attributes;
		}
		if (!this.attributes.anyDevice() && this.attributes.device() != device.id()) {
			throw new IllegalArgumentException("The call of kernel " + this.kernel.name() + " asks for device "
					+ this.attributes.device() + " but its buffers are on device " + device.id());
		}
		return this.attributes.withDevice(device.id());
	}

	/**
	 * Enqueues the inputs' copies and the launch.
	 * @param args where each parameter goes as the launch takes it: an input's or an
	 * output's device buffer, else the parameter itself
	 * @param hosts where each input's page-locked staging goes
	 */
	private void enqueue(OffloadSession session, Object[] args, @Nullable HostBuffer[] hosts) {
		for (int i = 0; i < args.length; i++) {
			Object parameter = this.parameters[i];
			ElementType input = ElementType.ofArray(parameter);
			if (input != null) {
				HostBuffer host = Flow.stage(session, input, parameter);
				hosts[i] = host;
				args[i] = Flow.upload(session, host);
			}
			else if (parameter instanceof Output output) {
				args[i] = Flow.allocate(session, output.type, output.count);
			}
			else {
				args[i] = parameter;
			}
		}
		// resolveAttributes() refused a call without geometry before any of this ran.
		session.launch(this.kernel, Objects.requireNonNull(this.config), args);
	}

	/**
	 * Takes the smallest input's staging of at least {@code bytes} out of {@code hosts}.
	 * @return the buffer, or {@code null} if none left is that large
	 */
	private @Nullable HostBuffer takeStaged(@Nullable HostBuffer[] hosts, long bytes) {
		int best = -1;
		for (int i = 0; i < hosts.length; i++) {
			HostBuffer buffer = hosts[i];
			if (buffer != null && !(this.parameters[i] instanceof Output) && buffer.size() >= bytes
					&& (best < 0 || buffer.size() < hosts[best].size())) {
				best = i;
			}
		}
		if (best < 0) {
			return null;
		}
		HostBuffer taken = hosts[best];
		hosts[best] = null;
		return taken;
	}

	private void copyBack(OffloadSession session, Object[] args, @Nullable HostBuffer[] hosts) {
		for (int i = 0; i < args.length; i++) {
			if (this.parameters[i] instanceof Output output) {
				Flow.copyBack(session, output.type, (DeviceBuffer) args[i], Objects.requireNonNull(hosts[i]),
						output.count);
			}
		}
	}

	/**
	 * Puts a new array per output into {@code arrays}, in order, to be filled from the
	 * outputs' page-locked buffers once the work is done.
	 * @return {@code arrays}
	 */
	private Object[] newArrays(Object[] arrays) {
		int output = 0;
		for (int i = 0; i < this.parameterCount; i++) {
			if (this.parameters[i] instanceof Output out) {
				arrays[output++] = out.type.newArray(out.count);
			}
		}
		return arrays;
	}

	@Override
	public String toString() {
		return "KernelCall[" + this.kernel.name() + ", " + this.parameterCount + " parameters]";
	}

	private record Output(ElementType type, int count) {

	}

}
