package dev.offload.spi;

/**
 * A marker in a stream's work (a CUDA event) that other streams and the host can wait
 * for.
 */
public interface BackendEvent {

	/**
	 * Tells whether the work before the last record is done, without blocking.
	 * @return {@code true} when complete (also when never recorded)
	 * @throws dev.offload.BackendException if that work failed
	 */
	boolean query();

	/**
	 * Blocks until the work before the last record is done.
	 * @throws dev.offload.BackendException if that work failed
	 */
	void synchronize();

	/**
	 * Returns the native handle ({@code jcuda.driver.CUevent} on CUDA).
	 * @return the handle
	 */
	Object handle();

	/**
	 * Destroys the event.
	 */
	void destroy();

}
