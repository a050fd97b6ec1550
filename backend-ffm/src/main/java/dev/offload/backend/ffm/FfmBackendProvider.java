package dev.offload.backend.ffm;

import java.util.Objects;
import java.util.function.Supplier;

import dev.offload.backend.cuda.CudaUnavailableException;
import dev.offload.compile.KernelCache;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;

/**
 * Provides the CUDA backend through the FFM binding ({@link FfmBackend}): named
 * {@code cuda}, with {@link #binding()} {@code ffm}. Its probe loads the driver once per
 * process and caches the answer. Load this class only on Java 22+ (autoconfigure does so
 * reflectively).
 */
public final class FfmBackendProvider implements BackendProvider {

	private final Supplier<KernelCache> kernelCache;

	/**
	 * Creates a provider whose backend caches compiled kernels in
	 * {@link KernelCache#defaultDirectory()} and finds NVRTC by soname.
	 */
	public FfmBackendProvider() {
		this(KernelCache.create(KernelCache.defaultDirectory(), null));
	}

	/**
	 * Creates a provider whose backend compiles modules from CUDA source through
	 * {@code kernelCache} (with NVRTC through this binding, from the cache's configured
	 * library or by soname).
	 * @param kernelCache the compiled images of modules from CUDA source
	 */
	public FfmBackendProvider(KernelCache kernelCache) {
		Objects.requireNonNull(kernelCache, "kernelCache");
		this.kernelCache = () -> kernelCache;
	}

	/**
	 * Creates a provider whose backend compiles modules from CUDA source through the
	 * cache that {@code kernelCache} gives when the backend is created, not before
	 * (Spring Boot chooses the backend before the cache bean exists).
	 * @param kernelCache gives the compiled images of modules from CUDA source
	 */
	public FfmBackendProvider(Supplier<KernelCache> kernelCache) {
		this.kernelCache = Objects.requireNonNull(kernelCache, "kernelCache");
	}

	/**
	 * Returns the cache the backends of this provider compile modules from CUDA source
	 * through.
	 * @return the cache
	 */
	public KernelCache kernelCache() {
		return Objects.requireNonNull(this.kernelCache.get(), "the kernel cache supplier gave null");
	}

	@Override
	public String name() {
		return FfmBackend.NAME;
	}

	@Override
	public String binding() {
		return FfmBackend.BINDING;
	}

	@Override
	public BackendAvailability probe() {
		return FfmBackend.probe();
	}

	/**
	 * Creates the CUDA backend on the FFM binding.
	 * @return the backend
	 * @throws CudaUnavailableException if CUDA cannot be used here, saying why
	 */
	@Override
	public FfmBackend create() {
		return FfmBackend.create(kernelCache());
	}

}
