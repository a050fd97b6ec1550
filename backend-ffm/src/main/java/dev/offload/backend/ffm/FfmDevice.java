package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.backend.cuda.GpuSharingDetection;
import dev.offload.compile.KernelCache;
import dev.offload.internal.VirtualThreads;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.GpuSharing;
import dev.offload.spi.NativeMemory;

/**
 * One CUDA device and its primary context, as the JCuda binding's {@code CudaDevice}: the
 * context is retained on first use and released by {@link #close()}; every driver call is
 * preceded by {@link #makeCurrent()}, which sets the context only when the calling
 * thread's cached one differs (always on a virtual thread, whose carrier may change).
 */
final class FfmDevice implements BackendDevice {

	static final int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;

	static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;

	static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

	static final int CU_STREAM_NON_BLOCKING = 1;

	static final int CU_EVENT_DISABLE_TIMING = 2;

	/** {@code CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP}. */
	static final int HOST_ALLOC_PORTABLE_MAPPED = 1 | 2;

	/** The context this class last made current on each thread. */
	private static final ThreadLocal<Context> currentContext = new ThreadLocal<>();

	private final int ordinal;

	private final int device;

	private final String name;

	private final int computeCapabilityMajor;

	private final int computeCapabilityMinor;

	private final long totalMemoryBytes;

	private final int multiprocessorCount;

	private final GpuSharing sharing;

	private final KernelCache kernelCache;

	private final int driverVersion;

	private volatile @Nullable Context context;

	private volatile @Nullable DeviceInfo info;

	/** Guards retaining, describing and releasing the context; {@link #closed} too. */
	private final ReentrantLock lock = new ReentrantLock();

	private boolean closed;

	/** The device's UUID, {@code 8-4-4-4-12} hex digits, or {@code null} if unknown. */
	private final @Nullable String uuid;

	FfmDevice(int ordinal, KernelCache kernelCache, int driverVersion) {
		this.ordinal = ordinal;
		this.kernelCache = kernelCache;
		this.driverVersion = driverVersion;
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment value = arena.allocate(ValueLayout.JAVA_LONG);
			CuErrors.check("cuDeviceGet", Cu.cuDeviceGet(value.address(), ordinal), ordinal);
			this.device = value.get(ValueLayout.JAVA_INT, 0);
			MemorySegment name = arena.allocate(256);
			CuErrors.check("cuDeviceGetName", Cu.cuDeviceGetName(name.address(), 256, this.device), ordinal);
			this.name = name.getString(0, StandardCharsets.UTF_8);
			this.computeCapabilityMajor = attribute(arena, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
			this.computeCapabilityMinor = attribute(arena, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
			this.multiprocessorCount = attribute(arena, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
			CuErrors.check("cuDeviceTotalMem", Cu.cuDeviceTotalMem(value.address(), this.device), ordinal);
			this.totalMemoryBytes = value.get(ValueLayout.JAVA_LONG, 0);
			this.uuid = uuid(arena);
			this.sharing = GpuSharingDetection.detect(ordinal, this.name, this.uuid, this.totalMemoryBytes,
					optionalAttribute(arena, GpuSharingDetection.ATTRIBUTE_MPS_ENABLED), System.getenv());
		}
	}

	@Override
	public Optional<String> uuid() {
		return Optional.ofNullable(this.uuid);
	}

	private int attribute(Arena arena, int attribute) {
		MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
		CuErrors.check("cuDeviceGetAttribute", Cu.cuDeviceGetAttribute(value.address(), attribute, this.device),
				this.ordinal);
		return value.get(ValueLayout.JAVA_INT, 0);
	}

	/**
	 * Reads an attribute that older drivers do not know.
	 * @return its value, or {@link GpuSharingDetection#MPS_UNKNOWN} when refused
	 */
	private int optionalAttribute(Arena arena, int attribute) {
		MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
		int result = Cu.cuDeviceGetAttribute(value.address(), attribute, this.device);
		return (result == CuErrors.CUDA_SUCCESS) ? value.get(ValueLayout.JAVA_INT, 0) : GpuSharingDetection.MPS_UNKNOWN;
	}

	/**
	 * Returns the device's UUID as {@code 8-4-4-4-12} hex digits, or {@code null} if the
	 * driver does not say.
	 */
	private @Nullable String uuid(Arena arena) {
		MemorySegment uuid = arena.allocate(16);
		if (Cu.cuDeviceGetUuid(uuid.address(), this.device) != CuErrors.CUDA_SUCCESS) {
			return null;
		}
		StringBuilder text = new StringBuilder(36);
		for (int i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10) {
				text.append('-');
			}
			text.append(String.format(Locale.ROOT, "%02x", uuid.get(ValueLayout.JAVA_BYTE, i) & 0xff));
		}
		return text.toString();
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
					try (Arena arena = Arena.ofConfined()) {
						MemorySegment least = arena.allocate(ValueLayout.JAVA_INT);
						MemorySegment greatest = arena.allocate(ValueLayout.JAVA_INT);
						CuErrors.check("cuCtxGetStreamPriorityRange",
								Cu.cuCtxGetStreamPriorityRange(least.address(), greatest.address()), this.ordinal);
						described = new DeviceInfo(this.ordinal, this.name, this.computeCapabilityMajor,
								this.computeCapabilityMinor, this.totalMemoryBytes, this.multiprocessorCount,
								least.get(ValueLayout.JAVA_INT, 0), greatest.get(ValueLayout.JAVA_INT, 0),
								this.sharing);
					}
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
		Context ctx = this.context;
		if (ctx == null) {
			ctx = retain();
		}
		if (VirtualThreads.isCurrentThreadVirtual()) {
			CuErrors.check("cuCtxSetCurrent", Cu.cuCtxSetCurrent(ctx.address), this.ordinal);
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
		Context ctx = this.context;
		setCurrent((ctx != null) ? ctx : retain());
	}

	private void setCurrent(Context ctx) {
		CuErrors.check("cuCtxSetCurrent", Cu.cuCtxSetCurrent(ctx.address), this.ordinal);
		if (!VirtualThreads.isCurrentThreadVirtual()) {
			currentContext.set(ctx);
		}
	}

	private Context retain() {
		this.lock.lock();
		try {
			if (this.closed) {
				throw new BackendException("cuDevicePrimaryCtxRetain", "OFFLOAD_DEVICE_CLOSED",
						"the device was closed and its context released", this.ordinal, false, null);
			}
			Context ctx = this.context;
			if (ctx == null) {
				try (Arena arena = Arena.ofConfined()) {
					MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
					CuErrors.check("cuDevicePrimaryCtxRetain",
							Cu.cuDevicePrimaryCtxRetain(pointer.address(), this.device), this.ordinal);
					ctx = new Context(pointer.get(ValueLayout.JAVA_LONG, 0));
				}
				this.context = ctx;
			}
			return ctx;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns the primary context's address, retaining it if needed.
	 * @return the {@code CUcontext}
	 */
	long context() {
		Context ctx = this.context;
		return ((ctx != null) ? ctx : retain()).address;
	}

	@Override
	public BackendStream createStream(int priority) {
		makeCurrent();
		long stream;
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
			CuErrors.check("cuStreamCreateWithPriority",
					Cu.cuStreamCreateWithPriority(pointer.address(), CU_STREAM_NON_BLOCKING, priority), this.ordinal);
			stream = pointer.get(ValueLayout.JAVA_LONG, 0);
		}
		return new FfmStream(this, stream);
	}

	@Override
	public BackendEvent createEvent() {
		makeCurrent();
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
			CuErrors.check("cuEventCreate", Cu.cuEventCreate(pointer.address(), CU_EVENT_DISABLE_TIMING), this.ordinal);
			return new FfmEvent(this, pointer.get(ValueLayout.JAVA_LONG, 0));
		}
	}

	@Override
	public NativeMemory allocateDevice(long bytes) {
		makeCurrent();
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
			CuErrors.check("cuMemAlloc(" + bytes + " bytes)", Cu.cuMemAlloc(pointer.address(), bytes), this.ordinal);
			return FfmMemory.device(this, pointer.get(ValueLayout.JAVA_LONG, 0), bytes, false);
		}
	}

	/**
	 * Allocates in the stream's order, the out-parameter in the stream's own scratch
	 * memory: a buffer cache miss allocates nothing native but the device memory.
	 */
	@Override
	public NativeMemory allocateDevice(long bytes, BackendStream stream) {
		FfmStream ffm = stream.handle(FfmStream.class);
		if (ffm == null) {
			// A decorated stream that does not pass the view on: allocate in its order
			// through its raw address.
			makeCurrent();
			try (Arena arena = Arena.ofConfined()) {
				MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
				CuErrors.check("cuMemAllocAsync(" + bytes + " bytes)",
						Cu.cuMemAllocAsync(pointer.address(), bytes, (Long) stream.handle()), this.ordinal);
				return FfmMemory.device(this, pointer.get(ValueLayout.JAVA_LONG, 0), bytes, true);
			}
		}
		makeCurrent();
		return FfmMemory.device(this, ffm.allocateOrdered(bytes), bytes, true);
	}

	@Override
	public long freeMemoryBytes() {
		makeCurrent();
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment free = arena.allocate(ValueLayout.JAVA_LONG);
			MemorySegment total = arena.allocate(ValueLayout.JAVA_LONG);
			int result = Cu.cuMemGetInfo(free.address(), total.address());
			return (result == CuErrors.CUDA_SUCCESS) ? free.get(ValueLayout.JAVA_LONG, 0) : -1;
		}
	}

	@Override
	public NativeMemory allocateHost(long bytes) {
		makeCurrent();
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment pointer = arena.allocate(ValueLayout.JAVA_LONG);
			CuErrors.check("cuMemHostAlloc(" + bytes + " bytes)",
					Cu.cuMemHostAlloc(pointer.address(), bytes, HOST_ALLOC_PORTABLE_MAPPED), this.ordinal);
			long host = pointer.get(ValueLayout.JAVA_LONG, 0);
			int result = Cu.cuMemHostGetDevicePointer(pointer.address(), host, 0);
			if (result != CuErrors.CUDA_SUCCESS) {
				CuErrors.checkQuietly("cuMemFreeHost", Cu.cuMemFreeHost(host), this.ordinal);
				throw CuErrors.error("cuMemHostGetDevicePointer", result, this.ordinal);
			}
			return FfmMemory.host(this, host, pointer.get(ValueLayout.JAVA_LONG, 0), bytes);
		}
	}

	@Override
	public BackendModule loadModule(ModuleDefinition definition) {
		return FfmModule.load(this, definition);
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
			Context ctx = this.context;
			if (ctx != null) {
				CuErrors.checkQuietly("cuDevicePrimaryCtxRelease", Cu.cuDevicePrimaryCtxRelease(this.device),
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
		return "FfmDevice[" + this.ordinal + ", " + this.name + ", " + this.computeCapabilityMajor + "."
				+ this.computeCapabilityMinor + "]";
	}

	/**
	 * A retained primary context: an object, so that the per-thread cache compares
	 * identities without boxing.
	 */
	private static final class Context {

		final long address;

		Context(long address) {
			this.address = address;
		}

	}

}
