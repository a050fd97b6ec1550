package dev.offload.internal.health;

import java.nio.charset.StandardCharsets;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * NVML through JNA, loaded by its soname ({@code libnvidia-ml.so.1}), which the driver
 * installs and the NVIDIA container toolkit mounts.
 */
final class JnaNvml implements Nvml {

	/**
	 * The size of {@code nvmlEventData_t}: {@code nvmlDevice_t device},
	 * {@code unsigned long long eventType}, {@code unsigned long long eventData},
	 * {@code unsigned int gpuInstanceId}, {@code unsigned int computeInstanceId} (32
	 * bytes on 64-bit Linux), with room to spare.
	 */
	private static final int EVENT_DATA_BYTES = 64;

	private static final int OFFSET_DEVICE = 0;

	private static final int OFFSET_EVENT_TYPE = 8;

	private static final int OFFSET_EVENT_DATA = 16;

	/** The signatures of nvml.h, handles as pointers. */
	interface NvmlLibrary extends Library {

		int nvmlInit_v2();

		int nvmlShutdown();

		String nvmlErrorString(int result);

		int nvmlSystemGetDriverVersion(byte[] version, int length);

		int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);

		int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes);

		int nvmlEventSetCreate(PointerByReference set);

		int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

		int nvmlEventSetWait_v2(Pointer set, Pointer data, int timeoutms);

		int nvmlEventSetFree(Pointer set);

	}

	private final NvmlLibrary library;

	/** One buffer: only the watcher thread waits. */
	private final Memory eventData = new Memory(EVENT_DATA_BYTES);

	private JnaNvml(NvmlLibrary library) {
		this.library = library;
	}

	/**
	 * Loads NVML.
	 * @throws UnsatisfiedLinkError if the library is not there
	 */
	static JnaNvml load() {
		return new JnaNvml(Native.load(SONAME, NvmlLibrary.class));
	}

	@Override
	public int init() {
		return this.library.nvmlInit_v2();
	}

	@Override
	public int shutdown() {
		return this.library.nvmlShutdown();
	}

	@Override
	public String errorString(int result) {
		String text = this.library.nvmlErrorString(result);
		return (text != null) ? text : "NVML error " + result;
	}

	@Override
	public String driverVersion() {
		byte[] version = new byte[96];
		if (this.library.nvmlSystemGetDriverVersion(version, version.length) != SUCCESS) {
			return "unknown";
		}
		int length = 0;
		while (length < version.length && version[length] != 0) {
			length++;
		}
		return new String(version, 0, length, StandardCharsets.US_ASCII);
	}

	@Override
	public int deviceByUuid(String uuid, long[] device) {
		PointerByReference handle = new PointerByReference();
		int result = this.library.nvmlDeviceGetHandleByUUID(uuid, handle);
		device[0] = Pointer.nativeValue(handle.getValue());
		return result;
	}

	@Override
	public int supportedEventTypes(long device, long[] types) {
		LongByReference mask = new LongByReference();
		int result = this.library.nvmlDeviceGetSupportedEventTypes(new Pointer(device), mask);
		types[0] = mask.getValue();
		return result;
	}

	@Override
	public int eventSetCreate(long[] set) {
		PointerByReference created = new PointerByReference();
		int result = this.library.nvmlEventSetCreate(created);
		set[0] = Pointer.nativeValue(created.getValue());
		return result;
	}

	@Override
	public int registerEvents(long device, long types, long set) {
		return this.library.nvmlDeviceRegisterEvents(new Pointer(device), types, new Pointer(set));
	}

	@Override
	public int eventSetWait(long set, long[] event, int timeoutMs) {
		this.eventData.clear();
		int result = this.library.nvmlEventSetWait_v2(new Pointer(set), this.eventData, timeoutMs);
		if (result == SUCCESS) {
			event[0] = Pointer.nativeValue(this.eventData.getPointer(OFFSET_DEVICE));
			event[1] = this.eventData.getLong(OFFSET_EVENT_TYPE);
			event[2] = this.eventData.getLong(OFFSET_EVENT_DATA);
		}
		return result;
	}

	@Override
	public int eventSetFree(long set) {
		return this.library.nvmlEventSetFree(new Pointer(set));
	}

}
