package dev.offload.spi;

/**
 * A sequence of copies, fills and launches captured from a {@link BackendStream} once and
 * replayed with {@link BackendStream#launch(BackendGraph)} (an instantiated CUDA graph,
 * or the host's recording). It belongs to its device and is destroyed before the device
 * closes.
 */
public interface BackendGraph {

	/**
	 * Releases the graph. Never throws; destroying twice is harmless.
	 */
	void destroy();

}
