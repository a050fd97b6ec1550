package dev.offload.spi;

import java.util.List;

/**
 * A device runtime that {@link dev.offload.DeviceRegistry} builds devices, pools and
 * sessions on.
 * <p>
 * Implementations: {@code cuda} (JCuda's driver API) and {@code host} (an emulated device
 * on the CPU). A backend is thread-safe; it is closed once, after every device it
 * returned has been closed.
 */
public interface Backend extends AutoCloseable {

	/**
	 * Returns the backend's name as used in configuration.
	 * @return {@code "cuda"}, {@code "host"} or another short lowercase name
	 */
	String name();

	/**
	 * Returns whether this backend's work runs on this machine's processors (an emulation
	 * such as the host backend), so that a thread waiting for it should park rather than
	 * spin. The device asks this rather than comparing names, which would tie the API to
	 * one backend. By default, whether the backend is named {@code "host"}, as a backend
	 * that wraps the host backend under its name is.
	 * @return whether the work runs on host processors
	 */
	default boolean runsWorkOnHostProcessors() {
		return "host".equals(name());
	}

	/**
	 * Discovers the devices of this backend, in id order.
	 * @return the devices; never empty
	 * @throws dev.offload.BackendException if discovery fails
	 */
	List<BackendDevice> devices();

	/**
	 * Opens the GPU's own fault reports (Xid errors) for {@code devices}, which a
	 * registry's watcher reads on a thread of its own. The CUDA backends read them from
	 * NVML; the default has none.
	 * @param devices the registry's devices
	 * @return the open source
	 * @throws UnsupportedOperationException saying why there is none (no GPU, no NVML
	 * library, no device NVML knows)
	 */
	default GpuFaultSource openGpuFaultSource(List<BackendDevice> devices) {
		throw new UnsupportedOperationException("the " + name() + " backend has no GPU to report faults");
	}

	/**
	 * Releases what the backend holds once all its devices are closed.
	 */
	@Override
	void close();

}
