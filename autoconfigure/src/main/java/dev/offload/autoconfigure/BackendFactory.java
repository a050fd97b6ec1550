package dev.offload.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.unit.DataSize;

import dev.offload.autoconfigure.OffloadProperties.BackendType;
import dev.offload.autoconfigure.OffloadProperties.CudaBinding;
import dev.offload.autoconfigure.OffloadProperties.Host;
import dev.offload.backend.cuda.CudaBackendProvider;
import dev.offload.compile.KernelCache;
import dev.offload.backend.host.HostBackend;
import dev.offload.backend.host.HostBackendProvider;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendAvailability;
import dev.offload.spi.BackendProvider;
import dev.offload.spi.BackendSelection;

/**
 * Chooses the {@link Backend} that {@code offload.backend} asks for, once: {@code host},
 * {@code cuda} (or a startup failure that says why CUDA is not usable), or for
 * {@code auto} CUDA when it is usable, else host; then creates it with one log line that
 * says which backend and binding run and why. The selection is final: creating the
 * backend never falls back to another.
 * <p>
 * CUDA has two bindings ({@code offload.cuda.binding}): {@code ffm}, Java's foreign
 * function API ({@code offload-backend-ffm}, Java 22+), and {@code jcuda}. {@code auto}
 * takes the FFM binding on Java 22+ when it can run, else JCuda. The FFM provider's class
 * (compiled for Java 22) is loaded reflectively, and only on Java 22+, so that Java 17
 * never reads it.
 */
final class BackendFactory {

	/**
	 * JCuda's driver API class, which the CUDA backend needs.
	 */
	static final String DRIVER_CLASS_NAME = "jcuda.driver.JCudaDriver";

	/**
	 * The FFM binding's provider, in {@code offload-backend-ffm}.
	 */
	static final String FFM_PROVIDER_CLASS_NAME = "dev.offload.backend.ffm.FfmBackendProvider";

	/**
	 * The first Java release whose foreign function API the FFM binding is written for.
	 */
	static final int FFM_JAVA_VERSION = 22;

	private static final String BACKEND_PROPERTY = "offload.backend";

	private static final String BINDING_PROPERTY = "offload.cuda.binding";

	private static final String CUDA_LOG_PREFIX = "Offload uses the CUDA backend through the ";

	private static final String HOST_LOG_PREFIX = "Offload uses the host backend (devices emulated on the CPU): ";

	private static final Logger logger = LoggerFactory.getLogger(BackendFactory.class);

	private final OffloadProperties properties;

	private final BackendProvider jcuda;

	private final BackendProvider ffm;

	private final int javaVersion;

	private final SettingErrors errors;

	/**
	 * Creates a factory with one CUDA binding, JCuda's, on Java 17.
	 * @param properties the configuration
	 * @param cuda the provider of the CUDA backend
	 * @param environment where the configuration was bound from, to report values as
	 * typed; or {@code null}
	 */
	BackendFactory(OffloadProperties properties, BackendProvider cuda, Environment environment) {
		this(properties, cuda, new UnavailableProvider("cuda", "ffm", "no FFM binding was given"), 17, environment);
	}

	/**
	 * Creates a factory.
	 * @param properties the configuration
	 * @param jcuda the provider of the CUDA backend through JCuda
	 * @param ffm the provider of the CUDA backend through the FFM binding
	 * @param javaVersion the running Java's feature release ({@code 17}, {@code 25})
	 * @param environment where the configuration was bound from, to report values as
	 * typed; or {@code null}
	 */
	BackendFactory(OffloadProperties properties, BackendProvider jcuda, BackendProvider ffm, int javaVersion,
			Environment environment) {
		this.properties = properties;
		this.jcuda = jcuda;
		this.ffm = ffm;
		this.javaVersion = javaVersion;
		this.errors = new SettingErrors(environment);
	}

	/**
	 * Creates a factory over Offload's CUDA backend, which compiles modules from CUDA
	 * source through the cache {@code kernelCache} gives when the backend is created (the
	 * {@code offload.kernels.*} bean, which the selection is made before), or over one
	 * that says JCuda is missing.
	 * @param properties the configuration
	 * @param classLoader the application's class loader, where JCuda must be
	 * @param environment where the configuration was bound from
	 * @param kernelCache gives the compiled kernels
	 * @return the factory
	 */
	static BackendFactory of(OffloadProperties properties, @Nullable ClassLoader classLoader, Environment environment,
			Supplier<KernelCache> kernelCache) {
		int javaVersion = Runtime.version().feature();
		BackendProvider jcuda;
		BackendProvider ffm;
		if (properties.getBackend() == BackendType.HOST) {
			// Neither probed nor created on the host backend: JCuda's large driver class
			// is not even loaded, nor the FFM binding.
			jcuda = new UnavailableProvider("cuda", "jcuda", "'" + BACKEND_PROPERTY + "' is 'host'");
			ffm = new UnavailableProvider("cuda", "ffm", "'" + BACKEND_PROPERTY + "' is 'host'");
		}
		else {
			jcuda = ClassUtils.isPresent(DRIVER_CLASS_NAME, classLoader) ? jcudaProvider(kernelCache)
					: new UnavailableProvider("cuda", "jcuda",
							"JCuda (" + DRIVER_CLASS_NAME + ") is not on the classpath");
			ffm = ffmProvider(classLoader, kernelCache, javaVersion);
		}
		return new BackendFactory(properties, jcuda, ffm, javaVersion, environment);
	}

	private static BackendProvider jcudaProvider(Supplier<KernelCache> kernelCache) {
		return new CudaBackendProvider(kernelCache);
	}

	/**
	 * Returns the provider of the CUDA backend through JCuda, usable or not.
	 * @return the provider
	 */
	BackendProvider cuda() {
		return this.jcuda;
	}

	/**
	 * Returns the provider of the CUDA backend through the FFM binding, usable or not.
	 * @return the provider
	 */
	BackendProvider ffm() {
		return this.ffm;
	}

	/**
	 * Makes the FFM binding's provider reflectively, and only on Java 22+: its classes
	 * are compiled for Java 22.
	 */
	static BackendProvider ffmProvider(@Nullable ClassLoader classLoader, Supplier<KernelCache> kernelCache,
			int javaVersion) {
		if (javaVersion < FFM_JAVA_VERSION) {
			return new UnavailableProvider("cuda", "ffm",
					"the FFM binding needs Java " + FFM_JAVA_VERSION + " or later; this is Java " + javaVersion);
		}
		if (!ClassUtils.isPresent(FFM_PROVIDER_CLASS_NAME, classLoader)) {
			return new UnavailableProvider("cuda", "ffm",
					"the FFM binding (offload-backend-ffm, " + FFM_PROVIDER_CLASS_NAME + ") is not on the classpath");
		}
		try {
			Class<?> type = ClassUtils.forName(FFM_PROVIDER_CLASS_NAME, classLoader);
			return (BackendProvider) type.getConstructor(Supplier.class).newInstance(kernelCache);
		}
		catch (ReflectiveOperationException | LinkageError | RuntimeException ex) {
			return new UnavailableProvider("cuda", "ffm", "the FFM binding could not be loaded: " + describe(ex));
		}
	}

	/**
	 * Decides which backend to create, without creating it; probes CUDA unless
	 * {@code offload.backend} is {@code host}.
	 * @return the selection; its provider is {@code null} when CUDA is required and not
	 * usable
	 * @throws InvalidOffloadConfigurationException if a host setting is out of bounds
	 */
	BackendSelection select() {
		BackendType type = this.properties.getBackend();
		String requested = type.name().toLowerCase(Locale.ROOT);
		if (type == BackendType.HOST) {
			return selection(requested, hostProvider(), false, "'" + BACKEND_PROPERTY + "' is 'host'");
		}
		List<BackendProvider> candidates = cudaCandidates();
		List<String> unavailable = new ArrayList<>();
		for (BackendProvider candidate : candidates) {
			BackendAvailability availability = probe(candidate);
			if (availability.available()) {
				return new BackendSelection(requested, candidate, false,
						why(candidate, unavailable) + availability.message(), availability.deviceCount());
			}
			unavailable.add(((candidates.size() > 1) ? label(candidate) + ": " : "") + availability.message());
		}
		String reason = String.join("; ", unavailable);
		if (type == BackendType.AUTO) {
			return selection(requested, hostProvider(), true, reason);
		}
		return new BackendSelection(requested, null, false, reason, 0);
	}

	/**
	 * The CUDA bindings to probe, in order: the one {@code offload.cuda.binding} names,
	 * or for {@code auto} FFM then JCuda on Java 22+, JCuda alone before.
	 */
	private List<BackendProvider> cudaCandidates() {
		return switch (this.properties.getCuda().getBinding()) {
			case FFM -> List.of(this.ffm);
			case JCUDA -> List.of(this.jcuda);
			case AUTO -> (this.javaVersion >= FFM_JAVA_VERSION) ? List.of(this.ffm, this.jcuda) : List.of(this.jcuda);
		};
	}

	/**
	 * Says why this binding, before the probe's message.
	 */
	private String why(BackendProvider chosen, List<String> unavailable) {
		CudaBinding binding = this.properties.getCuda().getBinding();
		String because;
		if (binding != CudaBinding.AUTO) {
			because = "'" + BINDING_PROPERTY + "' is '" + binding.name().toLowerCase(Locale.ROOT) + "'";
		}
		else if (!unavailable.isEmpty()) {
			because = "auto on Java " + this.javaVersion + ", " + String.join("; ", unavailable);
		}
		else if (this.javaVersion < FFM_JAVA_VERSION) {
			because = "auto on Java " + this.javaVersion + "; the FFM binding needs Java " + FFM_JAVA_VERSION;
		}
		else {
			because = "auto on Java " + this.javaVersion;
		}
		return label(chosen) + " (" + because + "): ";
	}

	private static String label(BackendProvider provider) {
		return "jcuda".equals(provider.binding()) ? "JCuda binding"
				: "ffm".equals(provider.binding()) ? "FFM binding" : provider.binding() + " binding";
	}

	private static BackendSelection selection(String requested, BackendProvider provider, boolean fallback,
			String reason) {
		return new BackendSelection(requested, provider, fallback, reason, provider.probe().deviceCount());
	}

	private static BackendAvailability probe(BackendProvider provider) {
		try {
			return provider.probe();
		}
		catch (RuntimeException | LinkageError ex) {
			// A probe should not throw; one that does (natives that fail to link) means
			// the backend cannot run.
			return BackendAvailability.unavailable(describe(ex));
		}
	}

	/**
	 * Creates the selected backend, and nothing else: the selection is the one decision
	 * that logs, health and the endpoint report, so a backend that the probe found usable
	 * and that then fails to start fails the startup rather than running on another
	 * backend than the selection says.
	 * @param selection the selection
	 * @return the backend
	 * @throws InvalidOffloadConfigurationException if the selected backend cannot run or
	 * start (CUDA required and not usable, or CUDA failing to start), or a host setting
	 * is out of bounds
	 */
	Backend create(BackendSelection selection) {
		if (!selection.isChosen()) {
			throw cudaUnusable(selection.reason(), null);
		}
		if (selection.fallback()) {
			logger.info(HOST_LOG_PREFIX + "{}", selection.reason());
		}
		else if ("cuda".equals(selection.backend())) {
			logger.info(CUDA_LOG_PREFIX + "{}", selection.reason());
		}
		try {
			// A chosen selection has a provider.
			return Objects.requireNonNull(selection.provider()).create();
		}
		catch (RuntimeException | LinkageError ex) {
			if (!"cuda".equals(selection.backend())) {
				throw ex;
			}
			throw cudaUnusable("the CUDA backend could not start: " + describe(ex), ex);
		}
	}

	private InvalidOffloadConfigurationException cudaUnusable(String reason, @Nullable Throwable cause) {
		String value = this.properties.getBackend().name().toLowerCase(Locale.ROOT);
		return this.errors.invalid(BACKEND_PROPERTY, value, "CUDA is not usable: " + reason,
				"Run on a machine with an NVIDIA GPU and driver that this process can see (check nvidia-smi and "
						+ "CUDA_VISIBLE_DEVICES), with a CUDA binding on the classpath (offload-spring-boot-starter "
						+ "brings JCuda's natives for linux-x86_64, and the FFM binding for Java " + FFM_JAVA_VERSION
						+ "+, which needs --enable-native-access=ALL-UNNAMED on Java 24+), or set '" + BINDING_PROPERTY
						+ "' to the other binding; or set '" + BACKEND_PROPERTY + "' to "
						+ ((this.properties.getBackend() == BackendType.CUDA)
								? "'auto' to fall back to the host emulation, or to 'host'." : "'host'."),
				cause);
	}

	/**
	 * Returns the provider of the host backend configured by {@code offload.host.*}.
	 * @return the provider
	 * @throws InvalidOffloadConfigurationException naming the setting out of bounds
	 */
	private HostBackendProvider hostProvider() {
		Host host = this.properties.getHost();
		HostBackend.Builder builder = HostBackend.builder();
		this.errors.check("offload.host.device-count", host.getDeviceCount(),
				"Set 'offload.host.device-count' between 1 and 64.", () -> builder.deviceCount(host.getDeviceCount()));
		Integer workers = host.getWorkersPerDevice();
		if (workers != null) {
			this.errors.check("offload.host.workers-per-device", workers,
					"Set 'offload.host.workers-per-device' to 1 or more, or remove it for one worker per processor.",
					() -> builder.workersPerDevice(workers));
		}
		DataSize memory = host.getMemory();
		if (memory != null) {
			this.errors.check("offload.host.memory", memory,
					"Set 'offload.host.memory' to a positive size, such as "
							+ "8GB, or remove it to report the JVM's maximum heap.",
					() -> builder.memoryBytes(memory.toBytes()));
		}
		List<String> names = host.getDeviceNames();
		String namesAction = "List one name in 'offload.host.device-names' for each of the " + host.getDeviceCount()
				+ " device(s) of 'offload.host.device-count', or remove it.";
		this.errors.check("offload.host.device-names", names, namesAction, () -> builder.deviceNames(names));
		if (names != null && !names.isEmpty() && names.size() != host.getDeviceCount()) {
			// Checked here rather than when the backend is built, so that a selection
			// never holds a provider that cannot create its backend.
			throw this.errors.invalid("offload.host.device-names", names,
					"deviceNames must name each of the " + host.getDeviceCount() + " devices, was " + names,
					namesAction, null);
		}
		return new HostBackendProvider(builder);
	}

	private static String describe(Throwable ex) {
		String message = ex.getMessage();
		return ex.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
	}

	/**
	 * A backend that cannot run here because what it needs is missing.
	 */
	private record UnavailableProvider(String name, String binding, String reason) implements BackendProvider {

		@Override
		public BackendAvailability probe() {
			return BackendAvailability.unavailable(this.reason);
		}

		@Override
		public Backend create() {
			throw new IllegalStateException(this.reason);
		}

	}

}
