package dev.offload.benchmarks.cuda;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

import dev.offload.Buffer;
import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.HostBuffer;
import dev.offload.backend.cuda.CudaSessions;
import dev.offload.benchmarks.support.ScaleKernel;
import dev.offload.benchmarks.support.Scaler;

/**
 * The hand-written JCuda side of the fluent call benchmarks: page-locked and device
 * buffers allocated once per thread, streams from a lock+deque pool shared by the
 * threads, the scale kernel loaded once in the device's primary context. Each of its
 * {@link Ingredients} can be Offload's instead (the breakdown of the fluent call's time).
 */
public final class HandWrittenScale implements Scaler {

	private static final ArrayDeque<CUstream> streams = new ArrayDeque<>();

	private static CUfunction function;

	private final CUcontext context;

	private final Ingredients ingredients;

	private final Pointer hostIn;

	private final Pointer hostOut;

	private final FloatBuffer inView;

	private final FloatBuffer outView;

	private final CUdeviceptr deviceIn;

	private final CUdeviceptr deviceOut;

	/** Offload's buffers among the above, closed with the scaler. */
	private final List<Buffer> offloadBuffers = new ArrayList<>();

	private HandWrittenScale(CUcontext context, Device device, int n, Ingredients ingredients) {
		this.context = context;
		this.ingredients = ingredients;
		check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
		long bytes = Math.max(1, (long) n * Float.BYTES);
		if (ingredients.hostMemory()) {
			HostBuffer in = device.allocateHost(bytes);
			HostBuffer out = device.allocateHost(bytes);
			this.offloadBuffers.add(in);
			this.offloadBuffers.add(out);
			this.hostIn = (Pointer) in.nativeHandle();
			this.hostOut = (Pointer) out.nativeHandle();
			this.inView = in.asByteBuffer().asFloatBuffer();
			this.outView = out.asByteBuffer().asFloatBuffer();
		}
		else {
			// -Dfluent.hand-written.mapped=true: page-locked memory of the flags
			// Offload's staging has, to tell the memory's kind from the rest of the
			// call.
			int flags = Boolean.getBoolean("fluent.hand-written.mapped")
					? JCudaDriver.CU_MEMHOSTALLOC_PORTABLE | JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP : 0;
			this.hostIn = new Pointer();
			this.hostOut = new Pointer();
			check(JCudaDriver.cuMemHostAlloc(this.hostIn, bytes, flags), "cuMemHostAlloc");
			check(JCudaDriver.cuMemHostAlloc(this.hostOut, bytes, flags), "cuMemHostAlloc");
			this.inView = this.hostIn.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder()).asFloatBuffer();
			this.outView = this.hostOut.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder()).asFloatBuffer();
		}
		if (ingredients.deviceMemory()) {
			DeviceBuffer in = device.allocate(bytes);
			DeviceBuffer out = device.allocate(bytes);
			this.offloadBuffers.add(in);
			this.offloadBuffers.add(out);
			this.deviceIn = CudaSessions.devicePointer(in);
			this.deviceOut = CudaSessions.devicePointer(out);
		}
		else {
			this.deviceIn = new CUdeviceptr();
			this.deviceOut = new CUdeviceptr();
			check(JCudaDriver.cuMemAlloc(this.deviceIn, bytes), "cuMemAlloc");
			check(JCudaDriver.cuMemAlloc(this.deviceOut, bytes), "cuMemAlloc");
		}
	}

	/**
	 * Returns a factory of per-thread scalers on {@code device}'s primary context.
	 * @param device a device of the CUDA backend
	 * @param n the largest array
	 * @return the factory
	 */
	public static Supplier<Scaler> factory(Device device, int n) {
		return factory(device, n, Ingredients.HAND_WRITTEN);
	}

	/**
	 * Returns a factory of per-thread scalers on {@code device}'s primary context, with
	 * some of Offload's parts in place of hand-written ones.
	 * @param device a device of the CUDA backend
	 * @param n the largest array
	 * @param ingredients which parts are Offload's
	 * @return the factory
	 */
	public static Supplier<Scaler> factory(Device device, int n, Ingredients ingredients) {
		// The device's primary context, the one Offload uses through either binding.
		check(JCudaDriver.cuInit(0), "cuInit");
		jcuda.driver.CUdevice cuDevice = new jcuda.driver.CUdevice();
		check(JCudaDriver.cuDeviceGet(cuDevice, device.id()), "cuDeviceGet");
		CUcontext context = new CUcontext();
		check(JCudaDriver.cuDevicePrimaryCtxRetain(context, cuDevice), "cuDevicePrimaryCtxRetain");
		synchronized (HandWrittenScale.class) {
			if (function == null) {
				check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
				byte[] ptx = read();
				jcuda.driver.CUmodule module = new jcuda.driver.CUmodule();
				check(JCudaDriver.cuModuleLoadData(module, java.util.Arrays.copyOf(ptx, ptx.length + 1)),
						"cuModuleLoadData");
				CUfunction loaded = new CUfunction();
				check(JCudaDriver.cuModuleGetFunction(loaded, module, ScaleKernel.NAME), "cuModuleGetFunction");
				function = loaded;
			}
		}
		return () -> new HandWrittenScale(context, device, n, ingredients);
	}

	@Override
	public float[] scale(float[] x, float a) {
		int n = x.length;
		long bytes = (long) n * Float.BYTES;
		CUstream stream = borrow();
		try {
			this.inView.clear();
			this.inView.put(x, 0, n);
			check(JCudaDriver.cuMemcpyHtoDAsync(this.deviceIn, this.hostIn, bytes, stream), "cuMemcpyHtoDAsync");
			Pointer parameters = Pointer.to(Pointer.to(new int[] { n }), Pointer.to(new float[] { a }),
					Pointer.to(this.deviceIn), Pointer.to(this.deviceOut));
			check(JCudaDriver.cuLaunchKernel(function, (n + ScaleKernel.BLOCK - 1) / ScaleKernel.BLOCK, 1, 1,
					ScaleKernel.BLOCK, 1, 1, 0, stream, parameters, null), "cuLaunchKernel");
			check(JCudaDriver.cuMemcpyDtoHAsync(this.hostOut, this.deviceOut, bytes, stream), "cuMemcpyDtoHAsync");
			check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
			float[] result = new float[n];
			this.outView.clear();
			this.outView.get(result, 0, n);
			return result;
		}
		finally {
			release(stream);
		}
	}

	private static CUstream borrow() {
		synchronized (streams) {
			CUstream stream = streams.poll();
			if (stream != null) {
				return stream;
			}
		}
		CUstream stream = new CUstream();
		check(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
		return stream;
	}

	private static void release(CUstream stream) {
		synchronized (streams) {
			streams.push(stream);
		}
	}

	@Override
	public void close() {
		check(JCudaDriver.cuCtxSetCurrent(this.context), "cuCtxSetCurrent");
		if (!this.ingredients.hostMemory()) {
			JCudaDriver.cuMemFreeHost(this.hostIn);
			JCudaDriver.cuMemFreeHost(this.hostOut);
		}
		if (!this.ingredients.deviceMemory()) {
			JCudaDriver.cuMemFree(this.deviceIn);
			JCudaDriver.cuMemFree(this.deviceOut);
		}
		this.offloadBuffers.forEach(Buffer::close);
	}

	private static byte[] read() {
		try (var in = HandWrittenScale.class.getClassLoader().getResourceAsStream(ScaleKernel.PTX)) {
			if (in == null) {
				throw new IllegalStateException("Missing resource " + ScaleKernel.PTX);
			}
			return in.readAllBytes();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	/**
	 * Which parts of the hand-written call are Offload's.
	 *
	 * @param deviceMemory device buffers from {@link Device#allocate(long)} (the device's
	 * memory pool) in place of {@code cuMemAlloc}
	 * @param hostMemory page-locked buffers from {@link Device#allocateHost(long)} (the
	 * staging memory) in place of {@code cuMemHostAlloc}
	 */
	public record Ingredients(boolean deviceMemory, boolean hostMemory) {

		/** All of it hand-written. */
		public static final Ingredients HAND_WRITTEN = new Ingredients(false, false);

	}

	private static void check(int result, String call) {
		if (result != CUresult.CUDA_SUCCESS) {
			throw new IllegalStateException(call + " failed: " + CUresult.stringFor(result));
		}
	}

}
