package dev.offload.backend.cuda;

import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.CUuuid;

import dev.offload.compile.KernelCache;
import dev.offload.BackendException;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;
import dev.offload.spi.NativeMemory;
import dev.offload.internal.VirtualThreads;

/**
 * One CUDA device and its primary context. The context is retained on first use (so
 * devices a registry leaves out are never touched) and released by {@link #close()}.
 * Every driver call is preceded by {@link #makeCurrent()}, which sets the context on the
 * calling thread only when that thread's cached current context differs, so that a thread
 * alternating between devices stays correct at the cost of one thread-local read per
 * call. A virtual thread sets it before every call: the driver keeps the current context
 * per operating-system thread, and a virtual thread moves between carrier threads, so a
 * cache per virtual thread would name a context its carrier may not have.
 * <p>
 * The context is retained and released under a lock, not a monitor: retaining it first
 * creates it, a long native call, and a virtual thread must not wait for a monitor (it
 * would pin its carrier on Java 21 to 23).
 */
final class CudaDevice implements BackendDevice {

	/** The context this class last made current on each thread. */
	private static final ThreadLocal<CUcontext> currentContext = new ThreadLocal<>();

	private final int ordinal;

	private final CUdevice device;

	private final String name;

	private final int computeCapabilityMajor;

	private final int computeCapabilityMinor;

	private final long totalMemoryBytes;

	private final int multiprocessorCount;

	private final GpuSharing sharing;

	private volatile @Nullable CUcontext context;

	private volatile @Nullable DeviceInfo info;

	/**
	 * Guards retaining, describing and releasing the context; {@link #closed} is read
	 * under it.
	 */
	private final ReentrantLock lock = new ReentrantLock();

	private boolean closed;

	private final KernelCache kernelCache;

	private final int driverVersion;

	/** The device's UUID, {@code 8-4-4-4-12} hex digits, or {@code null} if unknown. */
	private final @Nullable String uuid;

	CudaDevice(int ordinal, CUdevice device, KernelCache kernelCache, int driverVersion) {
		this.ordinal = ordinal;
		this.device = device;
		this.kernelCache = kernelCache;
		this.driverVersion = driverVersion;
		byte[] nameBytes = new byte[256];
		CudaErrors.check("cuDeviceGetName", CudaCalls.cuDeviceGetName(nameBytes, nameBytes.length, device), ordinal);
		this.name = cString(nameBytes);
		this.computeCapabilityMajor = attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
		this.computeCapabilityMinor = attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
		this.multiprocessorCount = attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
		long[] bytes = new long[1];
		CudaErrors.check("cuDeviceTotalMem", CudaCalls.cuDeviceTotalMem(bytes, device), ordinal);
		this.totalMemoryBytes = bytes[0];
		this.uuid = readUuid();
		this.sharing = GpuSharingDetection.detect(ordinal, this.name, this.uuid, this.totalMemoryBytes,
				optionalAttribute(GpuSharingDetection.ATTRIBUTE_MPS_ENABLED), System.getenv());
	}

	@Override
	public Optional<String> uuid() {
		return Optional.ofNullable(this.uuid);
	}

	/**
	 * Reads an attribute that older drivers do not know.
	 * @return its value, or {@link GpuSharingDetection#MPS_UNKNOWN} when the driver
	 * refuses it
	 */
	private int optionalAttribute(int attribute) {
		int[] value = new int[1];
		int result = CudaCalls.cuDeviceGetAttribute(value, attribute, this.device);
		return (result == CUresult.CUDA_SUCCESS) ? value[0] : GpuSharingDetection.MPS_UNKNOWN;
	}

	/**
	 * Returns the device's UUID as {@code 8-4-4-4-12} hex digits, without the
	 * {@code GPU-} or {@code MIG-} prefix, or {@code null} if the driver does not say.
	 */
	private @Nullable String readUuid() {
		CUuuid uuid = new CUuuid();
		if (CudaCalls.cuDeviceGetUuid(uuid, this.device) != CUresult.CUDA_SUCCESS || uuid.bytes == null
				|| uuid.bytes.length != 16) {
			return null;
		}
		StringBuilder text = new StringBuilder(36);
		for (int i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10) {
				text.append('-');
			}
			text.append(String.format(Locale.ROOT, "%02x", uuid.bytes[i] & 0xff));
		}
		return text.toString();
	}

	private int attribute(int attribute) {
		int[] value = new int[1];
		CudaErrors.check("cuDeviceGetAttribute", CudaCalls.cuDeviceGetAttribute(value, attribute, this.device),
				this.ordinal);
		return value[0];
	}

	private static String cString(byte[] bytes) {
		int length = 0;
		while (length < bytes.length && bytes[length] != 0) {
			length++;
		}
		return new String(bytes, 0, length, java.nio.charset.StandardCharsets.UTF_8);
	}

	@Override
	public int deviceId() {
		return this.ordinal;
	}

	/**
	 * Returns the device's description; the first call retains the primary context, which
	 * the stream priority range needs.
	 */
	@Override
	public DeviceInfo info() {
		DeviceInfo described = this.info;
		if (described == null) {
			this.lock.lock();
			try {
				described = this.info;
				if (described == null) {
					makeCurrent();
					int[] least = new int[1];
					int[] greatest = new int[1];
					CudaErrors.check("cuCtxGetStreamPriorityRange",
							CudaCalls.cuCtxGetStreamPriorityRange(least, greatest), this.ordinal);
					described = new DeviceInfo(this.ordinal, this.name, this.computeCapabilityMajor,
							this.computeCapabilityMinor, this.totalMemoryBytes, this.multiprocessorCount, least[0],
							greatest[0], this.sharing);
					this.info = described;
				}
			}
			finally {
				this.lock.unlock();
			}
		}
		return described;
	}

	/**
	 * Makes this device's primary context current on the calling thread, retaining it
	 * first if needed.
	 * @throws BackendException if the device is closed or the driver refuses
	 */
	void makeCurrent() {
		CUcontext ctx = this.context;
		if (ctx == null) {
			ctx = retain();
		}
		if (VirtualThreads.isCurrentThreadVirtual()) {
			CudaErrors.check("cuCtxSetCurrent", CudaCalls.cuCtxSetCurrent(ctx), this.ordinal);
		}
		else if (currentContext.get() != ctx) {
			setCurrent(ctx);
		}
	}

	/**
	 * Sets the context on the calling thread even if the cache says it is current, for
	 * code that may have switched contexts behind this class's back.
	 */
	void forceCurrent() {
		CUcontext ctx = this.context;
		setCurrent((ctx != null) ? ctx : retain());
	}

	private void setCurrent(CUcontext ctx) {
		CudaErrors.check("cuCtxSetCurrent", CudaCalls.cuCtxSetCurrent(ctx), this.ordinal);
		if (!VirtualThreads.isCurrentThreadVirtual()) {
			currentContext.set(ctx);
		}
	}

	private CUcontext retain() {
		this.lock.lock();
		try {
			if (this.closed) {
				throw new BackendException("cuDevicePrimaryCtxRetain", "OFFLOAD_DEVICE_CLOSED",
						"the device was closed and its context released", this.ordinal, false, null);
			}
			if (this.context == null) {
				CUcontext ctx = new CUcontext();
				CudaErrors.check("cuDevicePrimaryCtxRetain", CudaCalls.cuDevicePrimaryCtxRetain(ctx, this.device),
						this.ordinal);
				this.context = ctx;
			}
			return this.context;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns the primary context, retaining it if needed.
	 * @return the context
	 */
	CUcontext context() {
		CUcontext ctx = this.context;
		return (ctx != null) ? ctx : retain();
	}

	@Override
	public BackendStream createStream(int priority) {
		makeCurrent();
		CudaStreamHandle stream = new CudaStreamHandle(this);
		CudaErrors.check("cuStreamCreateWithPriority",
				CudaCalls.cuStreamCreateWithPriority(stream, CUstream_flags.CU_STREAM_NON_BLOCKING, priority),
				this.ordinal);
		return new CudaStream(this, stream);
	}

	@Override
	public BackendEvent createEvent() {
		makeCurrent();
		CUevent event = new CUevent();
		CudaErrors.check("cuEventCreate", CudaCalls.cuEventCreate(event, CUevent_flags.CU_EVENT_DISABLE_TIMING),
				this.ordinal);
		return new CudaEvent(this, event);
	}

	@Override
	public NativeMemory allocateDevice(long bytes) {
		makeCurrent();
		CudaDevicePointer pointer = new CudaDevicePointer();
		CudaErrors.check("cuMemAlloc(" + bytes + " bytes)", CudaCalls.cuMemAlloc(pointer, bytes), this.ordinal);
		return CudaMemory.device(this, pointer, bytes);
	}

	@Override
	public NativeMemory allocateDevice(long bytes, BackendStream stream) {
		makeCurrent();
		CudaDevicePointer pointer = new CudaDevicePointer();
		CudaErrors.check("cuMemAllocAsync(" + bytes + " bytes)",
				CudaCalls.cuMemAllocAsync(pointer, bytes, (CUstream) stream.handle()), this.ordinal);
		return CudaMemory.deviceOrdered(this, pointer, bytes);
	}

	@Override
	public long freeMemoryBytes() {
		makeCurrent();
		long[] free = new long[1];
		long[] total = new long[1];
		int result = CudaCalls.cuMemGetInfo(free, total);
		return (result == jcuda.driver.CUresult.CUDA_SUCCESS) ? free[0] : -1;
	}

	@Override
	public NativeMemory allocateHost(long bytes) {
		makeCurrent();
		Pointer host = new Pointer();
		CudaErrors.check("cuMemHostAlloc(" + bytes + " bytes)",
				CudaCalls.cuMemHostAlloc(host, bytes, CudaCalls.HOST_ALLOC_PORTABLE_MAPPED), this.ordinal);
		CudaDevicePointer mapped = new CudaDevicePointer();
		int result = CudaCalls.cuMemHostGetDevicePointer(mapped, host, 0);
		if (result != jcuda.driver.CUresult.CUDA_SUCCESS) {
			CudaErrors.checkQuietly("cuMemFreeHost", CudaCalls.cuMemFreeHost(host), this.ordinal);
			throw CudaErrors.error("cuMemHostGetDevicePointer", result, this.ordinal);
		}
		return CudaMemory.host(this, host, mapped, bytes);
	}

	@Override
	public BackendModule loadModule(ModuleDefinition definition) {
		return CudaModule.load(this, definition);
	}

	/**
	 * Releases the primary context if it was retained. Streams, events, memory and
	 * modules must be gone by now.
	 */
	@Override
	public void close() {
		this.lock.lock();
		try {
			if (this.closed) {
				return;
			}
			this.closed = true;
			CUcontext ctx = this.context;
			if (ctx != null) {
				CudaErrors.checkQuietly("cuDevicePrimaryCtxRelease", CudaCalls.cuDevicePrimaryCtxRelease(this.device),
						this.ordinal);
				if (currentContext.get() == ctx) {
					currentContext.remove();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns the image a module's CUDA source compiles to for this device.
	 */
	byte[] compile(ModuleDefinition definition) {
		return this.kernelCache.image(definition, 10 * this.computeCapabilityMajor + this.computeCapabilityMinor,
				this.driverVersion);
	}

	int ordinal() {
		return this.ordinal;
	}

	@Override
	public String toString() {
		return "CudaDevice[" + this.ordinal + ", " + this.name + ", " + this.computeCapabilityMajor + "."
				+ this.computeCapabilityMinor + "]";
	}

}
