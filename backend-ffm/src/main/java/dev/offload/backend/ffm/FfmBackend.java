package dev.offload.backend.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.offload.backend.cuda.CudaUnavailableException;
import dev.offload.compile.KernelCache;
import dev.offload.internal.health.NvmlGpuFaultSource;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.GpuFaultSource;

/**
 * CUDA devices through Java's foreign function API: the same backend as the JCuda binding
 * ({@code cuda}: primary contexts, non-blocking streams with priorities, events without
 * timing, stream-ordered and page-locked memory, modules from PTX, cubin or CUDA source,
 * graphs), reaching {@code libcuda.so.1} directly. Needs Java 22+ and, on Java 24+,
 * native access for the class path ({@code --enable-native-access=ALL-UNNAMED}, or the
 * {@code Enable-Native-Access} manifest entry of an executable jar) to run without a
 * warning.
 * <p>
 * {@link #probe()} loads the driver once per process, resolves its functions, calls
 * {@code cuInit} and counts the devices; it never throws. Modules from CUDA source are
 * compiled by NVRTC through this binding too (no JNA).
 */
public final class FfmBackend implements Backend {

	/**
	 * The backend's name in configuration: it is the CUDA backend.
	 */
	public static final String NAME = "cuda";

	/**
	 * The binding's name in configuration ({@code offload.cuda.binding}) and reports.
	 */
	public static final String BINDING = "ffm";

	private static @Nullable Availability availability;

	private final List<BackendDevice> devices;

	private FfmBackend(List<BackendDevice> devices) {
		this.devices = List.copyOf(devices);
	}

	/**
	 * Tells whether CUDA can be used through this binding, initializing the driver on the
	 * first call; later calls return the same answer. Never throws.
	 * @return the availability, with the reason when unavailable
	 */
	public static synchronized BackendAvailability probe() {
		return availability().toBackendAvailability();
	}

	static synchronized Availability availability() {
		if (availability == null) {
			availability = initialize(DriverLibrary::open);
		}
		return availability;
	}

	/**
	 * Initializes the driver and discovers the devices, which compile modules from CUDA
	 * source through a cache in {@link KernelCache#defaultDirectory()}.
	 * @return the backend
	 * @throws CudaUnavailableException if CUDA cannot be used here, saying why
	 */
	public static FfmBackend create() {
		return create(KernelCache.create(KernelCache.defaultDirectory(), null));
	}

	/**
	 * Initializes the driver and discovers the devices, which compile modules from CUDA
	 * source through {@code kernelCache}, with NVRTC called through this binding.
	 * @param kernelCache the compiled images of modules from CUDA source
	 * @return the backend
	 * @throws CudaUnavailableException if CUDA cannot be used here, saying why
	 */
	public static FfmBackend create(KernelCache kernelCache) {
		Availability probed = availability();
		if (!probed.available()) {
			// An unavailable answer always has its reason.
			throw new CudaUnavailableException(Objects.requireNonNull(probed.reason()), probed.message(),
					probed.cause());
		}
		kernelCache.useCompiler(Nvrtc::load);
		List<BackendDevice> devices = new ArrayList<>(probed.deviceCount());
		for (int ordinal = 0; ordinal < probed.deviceCount(); ordinal++) {
			devices.add(new FfmDevice(ordinal, kernelCache, probed.driverVersion()));
		}
		return new FfmBackend(devices);
	}

	/**
	 * Loads the driver through {@code library} and initializes it.
	 * @param library opens {@code libcuda.so.1}
	 * @return the availability
	 */
	static Availability initialize(Supplier<SymbolLookup> library) {
		if (Runtime.version().feature() < 22) {
			return Availability.unavailable(CudaUnavailableException.Reason.NATIVES_MISSING,
					"the FFM binding needs Java 22 or later, this is Java " + Runtime.version().feature(), null);
		}
		DriverLibrary driver;
		try {
			driver = DriverLibrary.load(library.get());
		}
		catch (DriverLibrary.DriverUnavailableException ex) {
			return Availability.unavailable(CudaUnavailableException.Reason.NATIVES_MISSING,
					String.valueOf(ex.getMessage()), ex);
		}
		catch (RuntimeException | LinkageError ex) {
			// Native access denied (--illegal-native-access=deny), among others.
			return Availability.unavailable(CudaUnavailableException.Reason.NATIVES_MISSING,
					"the FFM binding cannot call native code: " + ex, ex);
		}
		try (Arena arena = Arena.ofConfined()) {
			MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
			int init = Cu.cuInit(0);
			int version = (Cu.cuDriverGetVersion(value.address()) == CuErrors.CUDA_SUCCESS)
					? value.get(ValueLayout.JAVA_INT, 0) : 0;
			if (init == CuErrors.CUDA_ERROR_NO_DEVICE) {
				return Availability.unavailable(CudaUnavailableException.Reason.NO_DEVICE,
						"no CUDA device: cuInit returned " + describe(init), null);
			}
			if (init != CuErrors.CUDA_SUCCESS) {
				return Availability.unavailable(CudaUnavailableException.Reason.INIT_FAILED,
						"CUDA initialization failed: cuInit returned " + describe(init), null);
			}
			int counted = Cu.cuDeviceGetCount(value.address());
			if (counted != CuErrors.CUDA_SUCCESS) {
				return Availability.unavailable(CudaUnavailableException.Reason.INIT_FAILED,
						"CUDA initialization failed: cuDeviceGetCount returned " + describe(counted), null);
			}
			int count = value.get(ValueLayout.JAVA_INT, 0);
			if (count < 1) {
				return Availability.unavailable(CudaUnavailableException.Reason.NO_DEVICE,
						"no CUDA device: the driver reports 0 devices", null);
			}
			return new Availability(true, null, count, version,
					count + " CUDA device(s), driver CUDA " + (version / 1000) + "." + (version % 1000) / 10
							+ ", through the FFM binding (Java " + Runtime.version().feature() + ", "
							+ driver.resolution() + ")",
					null);
		}
		catch (RuntimeException | LinkageError ex) {
			return Availability.unavailable(CudaUnavailableException.Reason.INIT_FAILED,
					"CUDA initialization failed: " + ex, ex);
		}
	}

	private static String describe(int result) {
		return CuErrors.errorName(result) + " (" + CuErrors.errorText(result) + ")";
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
		return "FfmBackend[" + this.devices.size() + " device(s)]";
	}

	/**
	 * The outcome of the probe.
	 *
	 * @param available whether the driver initialized and has at least one device
	 * @param reason why CUDA is unavailable, or {@code null}
	 * @param deviceCount the devices (0 when unavailable)
	 * @param driverVersion the driver's CUDA version ({@code 1000 * major + 10 * minor})
	 * @param message the devices found, or why unavailable
	 * @param cause the underlying error, or {@code null}
	 */
	record Availability(boolean available, CudaUnavailableException.@Nullable Reason reason, int deviceCount,
			int driverVersion, String message, @Nullable Throwable cause) {

		static Availability unavailable(CudaUnavailableException.Reason reason, String message,
				@Nullable Throwable cause) {
			return new Availability(false, reason, 0, 0, message, cause);
		}

		BackendAvailability toBackendAvailability() {
			return this.available ? BackendAvailability.available(this.deviceCount, this.message)
					: BackendAvailability.unavailable(this.message);
		}

	}

}
