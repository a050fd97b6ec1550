package dev.offload.backend.cuda;

import java.util.ArrayList;
import java.util.List;

import dev.offload.compile.KernelCache;
import dev.offload.spi.BackendDevice;
import jcuda.driver.CUdevice;
import jcuda.driver.CUresult;

/**
 * The calls that touch JCuda before any device exists: loading the natives,
 * {@code cuInit} and discovery. Kept apart from {@link CudaBackend} so that the backend's
 * class loads without JCuda.
 */
final class CudaDriver {

	/**
	 * Whether JCuda's natives loaded: until they do, nothing may call into JCuda's driver
	 * class.
	 */
	private static volatile boolean loaded;

	private CudaDriver() {
	}

	static boolean isLoaded() {
		return loaded;
	}

	static CudaAvailability initialize() {
		// The first call loads JCuda's native library (and through it libcuda.so.1); a
		// failure here is a LinkageError. JCuda's exception mode is the application's to
		// choose: CudaCalls works in both.
		int init = CudaCalls.cuInit(0);
		loaded = true;
		int[] version = new int[1];
		CudaCalls.cuDriverGetVersion(version);
		if (init == CUresult.CUDA_ERROR_NO_DEVICE) {
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.NO_DEVICE, version[0],
					"no CUDA device: cuInit returned " + describe(init), null);
		}
		if (init != CUresult.CUDA_SUCCESS) {
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.INIT_FAILED, version[0],
					"CUDA initialization failed: cuInit returned " + describe(init), null);
		}
		int[] count = new int[1];
		int counted = CudaCalls.cuDeviceGetCount(count);
		if (counted != CUresult.CUDA_SUCCESS) {
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.INIT_FAILED, version[0],
					"CUDA initialization failed: cuDeviceGetCount returned " + describe(counted), null);
		}
		if (count[0] < 1) {
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.NO_DEVICE, version[0],
					"no CUDA device: the driver reports 0 devices", null);
		}
		return CudaAvailability.available(count[0], version[0]);
	}

	static List<BackendDevice> discover(int count, KernelCache kernelCache, int driverVersion) {
		List<BackendDevice> devices = new ArrayList<>(count);
		for (int ordinal = 0; ordinal < count; ordinal++) {
			CUdevice device = new CUdevice();
			CudaErrors.check("cuDeviceGet", CudaCalls.cuDeviceGet(device, ordinal), ordinal);
			devices.add(new CudaDevice(ordinal, device, kernelCache, driverVersion));
		}
		return devices;
	}

	static String describeLinkageError(LinkageError error) {
		StringBuilder message = new StringBuilder("JCuda's native library could not load");
		String chain = chain(error);
		if (chain.contains("libcuda")) {
			message.append(" because the NVIDIA driver library libcuda.so.1 is missing (no driver installed, or not "
					+ "on the library path)");
		}
		return message.append(": ").append(chain).toString();
	}

	private static String chain(Throwable error) {
		StringBuilder chain = new StringBuilder();
		for (Throwable cause = error; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (chain.length() > 0) {
				chain.append("; caused by ");
			}
			chain.append(summary(cause));
		}
		return chain.toString();
	}

	/**
	 * JCuda's loader puts whole stack traces of each attempt into its message; keep its
	 * headline and the errors of the attempts that found the library (the dynamic
	 * linker's complaint), which say what is missing.
	 */
	private static String summary(Throwable error) {
		String message = String.valueOf(error.getMessage());
		List<String> lines = message.lines().toList();
		StringBuilder summary = new StringBuilder(error.getClass().getName()).append(": ").append(lines.get(0));
		for (String line : lines.subList(1, lines.size())) {
			if (line.startsWith("java.lang.") && !line.contains("java.library.path")) {
				summary.append(" (").append(line.substring(line.indexOf(": ") + 2)).append(")");
			}
		}
		return summary.toString();
	}

	private static String describe(int result) {
		return CudaErrors.errorName(result) + " (" + CudaErrors.errorText(result) + ")";
	}

}
