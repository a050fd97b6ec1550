package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.offload.internal.health.Nvml;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * NVML through the foreign function API ({@code libnvidia-ml.so.1} by soname, no JNA),
 * the binding that this backend's GPU fault watch reads Xid events with. Every call may
 * wait (the event wait for its whole timeout), so none is critical. What the calls write
 * back goes to memory allocated once with the binding: a wait allocates nothing. Only the
 * watcher thread waits; setup runs before it starts.
 */
final class FfmNvml implements Nvml {

	/**
	 * {@code nvmlEventData_t}: {@code nvmlDevice_t device},
	 * {@code unsigned long long eventType}, {@code unsigned long long eventData},
	 * {@code unsigned int gpuInstanceId}, {@code unsigned int computeInstanceId} (32
	 * bytes on 64-bit Linux), with room to spare.
	 */
	private static final long EVENT_DATA_BYTES = 64;

	private static final long OFFSET_EVENT_TYPE = 8;

	private static final long OFFSET_EVENT_DATA = 16;

	private static final int VERSION_BYTES = 96;

	private final MethodHandle init;

	private final MethodHandle shutdown;

	private final MethodHandle errorString;

	private final MethodHandle driverVersion;

	private final MethodHandle deviceByUuid;

	private final MethodHandle supportedEventTypes;

	private final MethodHandle eventSetCreate;

	private final MethodHandle registerEvents;

	private final MethodHandle eventSetWait;

	private final MethodHandle eventSetFree;

	/** The out-values and the event data, for the binding's life. */
	private final MemorySegment out = Arena.ofAuto().allocate(EVENT_DATA_BYTES + VERSION_BYTES, Long.BYTES);

	private FfmNvml(SymbolLookup symbols) {
		NativeLibrary library = new NativeLibrary(symbols);
		this.init = function(library, "nvmlInit_v2");
		this.shutdown = function(library, "nvmlShutdown");
		this.errorString = library.function("nvmlErrorString", NativeLibrary.BLOCKING,
				FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
		this.driverVersion = function(library, "nvmlSystemGetDriverVersion", JAVA_LONG, JAVA_INT);
		this.deviceByUuid = function(library, "nvmlDeviceGetHandleByUUID", JAVA_LONG, JAVA_LONG);
		this.supportedEventTypes = function(library, "nvmlDeviceGetSupportedEventTypes", JAVA_LONG, JAVA_LONG);
		this.eventSetCreate = function(library, "nvmlEventSetCreate", JAVA_LONG);
		this.registerEvents = function(library, "nvmlDeviceRegisterEvents", JAVA_LONG, JAVA_LONG, JAVA_LONG);
		this.eventSetWait = function(library, "nvmlEventSetWait_v2", JAVA_LONG, JAVA_LONG, JAVA_INT);
		this.eventSetFree = function(library, "nvmlEventSetFree", JAVA_LONG);
		library.requireAll("NVML of a driver with event sets (R450 or later)");
	}

	private static MethodHandle function(NativeLibrary library, String name, MemoryLayout... arguments) {
		return library.function(name, NativeLibrary.BLOCKING, FunctionDescriptor.of(JAVA_INT, arguments));
	}

	/**
	 * Loads NVML by its soname.
	 * @return the binding
	 * @throws UnsupportedOperationException saying why it did not load
	 */
	static FfmNvml load() {
		return load(SONAME, NativeLibrary::load);
	}

	/**
	 * Loads NVML.
	 * @param library the soname or path
	 * @param opener opens it
	 * @return the binding
	 * @throws UnsupportedOperationException saying why it did not load
	 */
	static FfmNvml load(String library, Function<String, SymbolLookup> opener) {
		Map<String, String> attempts = new LinkedHashMap<>();
		FfmNvml nvml = NativeLibrary.open(List.of(library), false, attempts, opener,
				(symbols, candidate) -> new FfmNvml(symbols));
		if (nvml == null) {
			throw new UnsupportedOperationException(library + " could not be loaded: " + attempts.get(library));
		}
		return nvml;
	}

	@Override
	public int init() {
		try {
			return (int) this.init.invokeExact();
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlInit_v2", ex);
		}
	}

	@Override
	public int shutdown() {
		try {
			return (int) this.shutdown.invokeExact();
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlShutdown", ex);
		}
	}

	@Override
	public String errorString(int result) {
		try {
			return NativeLibrary.string((long) this.errorString.invokeExact(result), "NVML error " + result);
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlErrorString", ex);
		}
	}

	@Override
	public String driverVersion() {
		MemorySegment version = this.out.asSlice(EVENT_DATA_BYTES, VERSION_BYTES);
		try {
			if ((int) this.driverVersion.invokeExact(version.address(), VERSION_BYTES) != SUCCESS) {
				return "unknown";
			}
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlSystemGetDriverVersion", ex);
		}
		return version.getString(0, StandardCharsets.US_ASCII);
	}

	@Override
	public int deviceByUuid(String uuid, long[] device) {
		try (Arena arena = Arena.ofConfined()) {
			int result = (int) this.deviceByUuid.invokeExact(arena.allocateFrom(uuid).address(), this.out.address());
			device[0] = this.out.get(JAVA_LONG, 0);
			return result;
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlDeviceGetHandleByUUID", ex);
		}
	}

	@Override
	public int supportedEventTypes(long device, long[] types) {
		try {
			int result = (int) this.supportedEventTypes.invokeExact(device, this.out.address());
			types[0] = this.out.get(JAVA_LONG, 0);
			return result;
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlDeviceGetSupportedEventTypes", ex);
		}
	}

	@Override
	public int eventSetCreate(long[] set) {
		try {
			int result = (int) this.eventSetCreate.invokeExact(this.out.address());
			set[0] = this.out.get(JAVA_LONG, 0);
			return result;
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlEventSetCreate", ex);
		}
	}

	@Override
	public int registerEvents(long device, long types, long set) {
		try {
			return (int) this.registerEvents.invokeExact(device, types, set);
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlDeviceRegisterEvents", ex);
		}
	}

	@Override
	public int eventSetWait(long set, long[] event, int timeoutMs) {
		MemorySegment data = this.out.asSlice(0, EVENT_DATA_BYTES);
		data.fill((byte) 0);
		int result;
		try {
			result = (int) this.eventSetWait.invokeExact(set, data.address(), timeoutMs);
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlEventSetWait_v2", ex);
		}
		if (result == SUCCESS) {
			event[0] = data.get(JAVA_LONG, 0);
			event[1] = data.get(JAVA_LONG, OFFSET_EVENT_TYPE);
			event[2] = data.get(JAVA_LONG, OFFSET_EVENT_DATA);
		}
		return result;
	}

	@Override
	public int eventSetFree(long set) {
		try {
			return (int) this.eventSetFree.invokeExact(set);
		}
		catch (Throwable ex) {
			throw NativeLibrary.linkFailure("nvmlEventSetFree", ex);
		}
	}

}
