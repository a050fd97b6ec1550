package dev.offload.backend.cuda;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.offload.compile.KernelCache;
import dev.offload.internal.health.NvmlGpuFaultSource;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.GpuFaultSource;

/**
 * CUDA devices through JCuda's driver API: one primary context per device, retained on
 * first use and released when the device closes; {@code CU_STREAM_NON_BLOCKING} streams
 * with priorities; events without timing; device and page-locked host memory; modules
 * from PTX (kernels and parameters read from the {@code .entry} signatures), cubin or
 * fatbin (kernels from the module's declared signatures).
 * <p>
 * {@link #probe()} says whether CUDA can be used here, cheaply and without throwing, so
 * that a configuration can fall back to the host backend; {@link #create()} discovers the
 * devices. The driver is initialized once per process. This class loads without JCuda on
 * the classpath: only {@link #create()} needs it.
 */
public final class CudaBackend implements Backend {

	/**
	 * The backend's name in configuration.
	 */
	public static final String NAME = "cuda";

	private static final Path NVIDIA_CONTROL_DEVICE = Path.of("/dev/nvidiactl");

	private static @Nullable CudaAvailability availability;

	private final List<BackendDevice> devices;

	private CudaBackend(List<BackendDevice> devices) {
		this.devices = List.copyOf(devices);
	}

	/**
	 * Tells whether CUDA can be used in this process: JCuda and its natives load,
	 * {@code cuInit} succeeds and there is at least one device. The first call
	 * initializes the driver; later calls return the same answer. Never throws.
	 * @return the availability, with the reason and the underlying error when unavailable
	 */
	static synchronized CudaAvailability probe() {
		if (availability == null) {
			availability = initialize();
		}
		return availability;
	}

	/**
	 * Initializes the driver and discovers the devices. No context is created until a
	 * device is used.
	 * @return the backend
	 * @throws CudaUnavailableException if CUDA cannot be used here, saying why
	 */
	public static CudaBackend create() {
		return create(KernelCache.create(KernelCache.defaultDirectory(), null));
	}

	/**
	 * Initializes the driver and discovers the devices, which compile modules from CUDA
	 * source through {@code kernelCache}. No context is created until a device is used.
	 * @param kernelCache the compiled images of modules from CUDA source
	 * @return the backend
	 * @throws CudaUnavailableException if CUDA cannot be used here, saying why
	 */
	public static CudaBackend create(KernelCache kernelCache) {
		CudaAvailability probed = probe();
		if (!probed.available()) {
			throw probed.toException();
		}
		return new CudaBackend(CudaDriver.discover(probed.deviceCount(), kernelCache, probed.driverVersion()));
	}

	private static CudaAvailability initialize() {
		if (isLinux() && !Files.exists(NVIDIA_CONTROL_DEVICE)) {
			// Every Linux machine with an NVIDIA driver, containers included, has this
			// device node. Without it, do not load JCuda's natives at all: that would
			// take about 100 ms only to fail on libcuda.so.1.
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.NO_DEVICE, 0, "no NVIDIA driver here: "
					+ NVIDIA_CONTROL_DEVICE + " does not exist (JCuda's natives were not loaded)", null);
		}
		try {
			Class.forName("jcuda.driver.JCudaDriver", false, CudaBackend.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.NATIVES_MISSING, 0,
					"JCuda is not on the classpath (add org.jcuda:jcuda and org.jcuda:jcuda-natives): " + ex, ex);
		}
		try {
			return CudaDriver.initialize();
		}
		catch (LinkageError ex) {
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.NATIVES_MISSING, 0,
					CudaDriver.describeLinkageError(ex), ex);
		}
		catch (RuntimeException ex) {
			return CudaAvailability.unavailable(CudaUnavailableException.Reason.INIT_FAILED, 0,
					"CUDA initialization failed: " + ex, ex);
		}
	}

	private static boolean isLinux() {
		return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux");
	}

	/**
	 * Opens NVML's fault reports (Xid errors) of the devices.
	 * @param devices the registry's devices
	 * @return the source
	 * @throws UnsupportedOperationException if NVML cannot watch them, saying why
	 */
	@Override
	public GpuFaultSource openGpuFaultSource(List<BackendDevice> devices) {
		return NvmlGpuFaultSource.open(devices);
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public List<BackendDevice> devices() {
		return this.devices;
	}

	/**
	 * Releases the primary context of every device still holding one.
	 */
	@Override
	public void close() {
		for (BackendDevice device : this.devices) {
			device.close();
		}
	}

	@Override
	public String toString() {
		return "CudaBackend[" + this.devices.size() + " device(s)]";
	}

}
