package dev.offload.spi;

/**
 * Makes one kind of {@link Backend} ({@code cuda}, {@code host}): says whether it can run
 * in this process, and creates it.
 */
public interface BackendProvider {

	/**
	 * Returns the name of the backends this provider makes, as used in configuration.
	 * @return {@code "cuda"}, {@code "host"} or another short lowercase name
	 */
	String name();

	/**
	 * Returns the native binding the backend reaches its runtime through, for logs and
	 * endpoints: for {@code cuda}, {@code jcuda} (JCuda's JNI) or {@code ffm} (Java's
	 * foreign function API); for a backend with one binding, its name.
	 * @return a short lowercase name
	 */
	default String binding() {
		return name();
	}

	/**
	 * Tells whether the backend can run here, cheaply; repeated calls may return a cached
	 * answer.
	 * @return the availability, with the reason when unavailable; never throws
	 */
	BackendAvailability probe();

	/**
	 * Creates the backend.
	 * @return the backend
	 * @throws RuntimeException if it cannot start, saying why
	 */
	Backend create();

}
