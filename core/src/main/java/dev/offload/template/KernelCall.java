package dev.offload.template;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.offload.Buffer;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
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

	private static final Output[] NO_OUTPUTS = {};

	private final OffloadTemplate template;

	private final KernelRef kernel;

	/** Room for a usual kernel's parameters without growing. */
	private final List<Object> parameters = new ArrayList<>(8);

	/** The output parameters, in order, in {@code outputs[0..outputCount)}. */
	private Output[] outputs = NO_OUTPUTS;

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
			throw new IllegalArgumentException("Parameter " + this.parameters.size() + " of " + this.kernel.name()
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
			Flow flow = Flow.of(session);
			HostBuffer[] staged = new HostBuffer[this.parameters.size() - this.outputCount];
			DeviceBuffer[] uploads = new DeviceBuffer[staged.length];
			DeviceBuffer[] results = enqueue(flow, staged, uploads);
			HostBuffer[] targets = new HostBuffer[results.length];
			for (int i = 0; i < targets.length; i++) {
				Output output = this.outputs[i];
				long bytes = output.type.bufferBytes(output.count);
				// An input's staging, read by its copy before the launch, takes an
				// output's copy after it: one page-locked block less to take and give
				// back.
				HostBuffer reused = takeStaged(staged, bytes);
				targets[i] = (reused != null) ? reused : session.allocateHost(bytes);
			}
			copyBack(flow, results, targets);
			// Made while the device works: once it is done, only the copies out are
			// left.
			KernelResult result = newResult(session.device());
			session.synchronize();
			result.readFrom(targets);
			// In a bound session (an @Offload method calling in a loop) the next call
			// draws what this one closed, instead of the session holding every call's.
			closeAll(staged);
			closeAll(uploads);
			closeAll(results);
			closeAll(targets);
			return result;
		});
	}

	private static void closeAll(@Nullable Buffer[] group) {
		for (var buffer : group) {
			if (buffer != null) {
				buffer.close();
			}
		}
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
		HostBuffer[] targets = new HostBuffer[this.outputCount];
		// The outputs are freed only once the work really ended, whatever the deadline.
		return this.template.submit(resolved, (session) -> {
			session.reserveMemory(this.deviceBytes);
			Flow flow = Flow.of(session);
			HostBuffer[] staged = new HostBuffer[this.parameters.size() - this.outputCount];
			DeviceBuffer[] uploads = new DeviceBuffer[staged.length];
			DeviceBuffer[] results = enqueue(flow, staged, uploads);
			for (int i = 0; i < targets.length; i++) {
				Output output = this.outputs[i];
				// A session's own buffers are given back before its future completes:
				// copy to the device's.
				targets[i] = session.device().allocateHost(output.type.bufferBytes(output.count));
			}
			copyBack(flow, results, targets);
			// Closed with their work enqueued: the session gives them back once that work
			// is known done, so that a bound session's next call can draw them.
			closeAll(staged);
			closeAll(uploads);
			closeAll(results);
			return session.device();
		}, (done) -> readWhenDone(done, targets));
	}

	private CompletableFuture<KernelResult> readWhenDone(CompletableFuture<Device> done, HostBuffer[] targets) {
		// Made by done: a thread that joins the result reads it on its own thread.
		CompletableFuture<KernelResult> result = done.newIncompleteFuture();
		done.whenComplete((device, failure) -> {
			try {
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					result.complete(newResult(device).readFrom(targets));
				}
			}
			catch (RuntimeException ex) {
				result.completeExceptionally(ex);
			}
			finally {
				for (HostBuffer target : targets) {
					if (target != null) {
						target.close();
					}
				}
			}
		});
		return result;
	}

	private KernelCall append(Object parameter) {
		this.parameters.add(parameter);
		return this;
	}

	private KernelCall input(ElementType type, Object values) {
		if (values == null) {
			throw new IllegalArgumentException("Parameter " + this.parameters.size() + " of " + this.kernel.name()
					+ ": in needs an array of " + type.plural() + ", was null");
		}
		Input input = new Input(type, values);
		// An array's length never changes: its device memory is known now.
		this.deviceBytes += Device.allocationSize(type.bufferBytes(type.length(values)));
		return append(input);
	}

	private KernelCall output(ElementType type, int count) {
		if (count < 0) {
			throw new IllegalArgumentException("Parameter " + this.parameters.size() + " of " + this.kernel.name()
					+ ": an output needs a count of at least 0, was " + count);
		}
		Output output = new Output(type, count);
		if (this.outputCount == this.outputs.length) {
			this.outputs = Arrays.copyOf(this.outputs, Math.max(2, 2 * this.outputCount));
		}
		this.outputs[this.outputCount++] = output;
		this.deviceBytes += Device.allocationSize(type.bufferBytes(count));
		return append(output);
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
		for (Object parameter : this.parameters) {
			if (parameter instanceof DeviceBuffer buffer) {
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
	 * @param staged where the inputs' page-locked buffers go, in order
	 * @param uploads where the inputs' device buffers go, in order
	 * @return the outputs' device buffers, in order
	 */
	private DeviceBuffer[] enqueue(Flow flow, HostBuffer[] staged, DeviceBuffer[] uploads) {
		Object[] args = new Object[this.parameters.size()];
		DeviceBuffer[] results = new DeviceBuffer[this.outputCount];
		int outputs = 0;
		int inputs = 0;
		for (int i = 0; i < args.length; i++) {
			Object parameter = this.parameters.get(i);
			if (parameter instanceof Input input) {
				HostBuffer host = flow.stage(input.type, input.values);
				DeviceBuffer upload = flow.upload(host);
				args[i] = upload;
				staged[inputs] = host;
				uploads[inputs++] = upload;
			}
			else if (parameter instanceof Output output) {
				DeviceBuffer buffer = flow.allocate(output.type, output.count);
				args[i] = buffer;
				results[outputs++] = buffer;
			}
			else {
				args[i] = parameter;
			}
		}
		// resolveAttributes() refused a call without geometry before any of this ran.
		flow.launch(this.kernel, Objects.requireNonNull(this.config), args);
		return results;
	}

	/**
	 * Takes the smallest staged buffer of at least {@code bytes} out of {@code staged}.
	 * @return the buffer, or {@code null} if none left is that large
	 */
	private static @Nullable HostBuffer takeStaged(@Nullable HostBuffer[] staged, long bytes) {
		int best = -1;
		for (int i = 0; i < staged.length; i++) {
			HostBuffer buffer = staged[i];
			if (buffer != null && buffer.size() >= bytes && (best < 0 || buffer.size() < staged[best].size())) {
				best = i;
			}
		}
		if (best < 0) {
			return null;
		}
		HostBuffer taken = staged[best];
		staged[best] = null;
		return taken;
	}

	private void copyBack(Flow flow, DeviceBuffer[] results, HostBuffer[] targets) {
		for (int i = 0; i < results.length; i++) {
			Output output = this.outputs[i];
			flow.copyBack(output.type, results[i], targets[i], output.count);
		}
	}

	/**
	 * Returns a result holding a new array per output, to be filled from the outputs'
	 * page-locked buffers once the work is done.
	 */
	private KernelResult newResult(Device device) {
		ElementType[] types = new ElementType[this.outputCount];
		Object[] arrays = new Object[this.outputCount];
		for (int i = 0; i < arrays.length; i++) {
			Output output = this.outputs[i];
			types[i] = output.type;
			arrays[i] = output.type.newArray(output.count);
		}
		return new KernelResult(device, types, arrays);
	}

	@Override
	public String toString() {
		return "KernelCall[" + this.kernel.name() + ", " + this.parameters.size() + " parameters]";
	}

	private record Input(ElementType type, Object values) {

	}

	private record Output(ElementType type, int count) {

	}

}
