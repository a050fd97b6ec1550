package dev.offload.internal.health;

/**
 * The few NVML calls that the GPU fault watch makes, with handles as addresses: an
 * interface so that a binding other than JNA's (FFM) can stand in, and tests can fake
 * NVML. Each returns NVML's {@code nvmlReturn_t} unless said otherwise.
 */
interface Nvml {

	/** {@code NVML_SUCCESS}. */
	int SUCCESS = 0;

	/** {@code NVML_ERROR_NOT_SUPPORTED}. */
	int ERROR_NOT_SUPPORTED = 3;

	/** {@code NVML_ERROR_NOT_FOUND}. */
	int ERROR_NOT_FOUND = 6;

	/** {@code NVML_ERROR_TIMEOUT}: {@code nvmlEventSetWait_v2} saw no event in time. */
	int ERROR_TIMEOUT = 10;

	/** {@code NVML_ERROR_GPU_IS_LOST}. */
	int ERROR_GPU_IS_LOST = 15;

	/** {@code nvmlEventTypeDoubleBitEccError}. */
	long EVENT_DOUBLE_BIT_ECC = 0x2L;

	/** {@code nvmlEventTypeXidCriticalError}. */
	long EVENT_XID_CRITICAL = 0x8L;

	/** {@code nvmlEventTypeDramRetirementEvent}: a page retired or a row remapped. */
	long EVENT_DRAM_RETIREMENT = 0x400L;

	/** {@code nvmlEventTypeDramRetirementFailure}. */
	long EVENT_DRAM_RETIREMENT_FAILURE = 0x800L;

	/** The events watched, where the device supports them. */
	long WATCHED = EVENT_XID_CRITICAL | EVENT_DOUBLE_BIT_ECC | EVENT_DRAM_RETIREMENT | EVENT_DRAM_RETIREMENT_FAILURE;

	/** The library's name, as NVML's own documentation loads it. */
	String SONAME = "libnvidia-ml.so.1";

	/** {@code nvmlInit_v2()}. */
	int init();

	/** {@code nvmlShutdown()}. */
	int shutdown();

	/** {@code nvmlErrorString(result)}. */
	String errorString(int result);

	/** {@code nvmlSystemGetDriverVersion}: the driver's version, or "unknown". */
	String driverVersion();

	/**
	 * {@code nvmlDeviceGetHandleByUUID(uuid, &device)}; the handle in {@code device[0]}.
	 */
	int deviceByUuid(String uuid, long[] device);

	/**
	 * {@code nvmlDeviceGetSupportedEventTypes(device, &types)}; the mask in
	 * {@code types[0]}.
	 */
	int supportedEventTypes(long device, long[] types);

	/** {@code nvmlEventSetCreate(&set)}; the set in {@code set[0]}. */
	int eventSetCreate(long[] set);

	/** {@code nvmlDeviceRegisterEvents(device, types, set)}. */
	int registerEvents(long device, long types, long set);

	/**
	 * {@code nvmlEventSetWait_v2(set, &data, timeoutMs)}: fills {@code event} with the
	 * {@code nvmlEventData_t}'s device handle, event type and event data (the Xid).
	 */
	int eventSetWait(long set, long[] event, int timeoutMs);

	/** {@code nvmlEventSetFree(set)}. */
	int eventSetFree(long set);

}
