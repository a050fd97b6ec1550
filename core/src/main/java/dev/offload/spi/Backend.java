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
	 * Discovers the devices of this backend, in id order.
	 * @return the devices; never empty
	 * @throws dev.offload.BackendException if discovery fails
	 */
	List<BackendDevice> devices();

	/**
	 * Releases what the backend holds once all its devices are closed.
	 */
	@Override
	void close();

}
