package dev.offload.autoconfigure;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.unit.DataSize;

import dev.offload.autoconfigure.CudaBackendSupport.Availability;
import dev.offload.autoconfigure.OffloadProperties.BackendType;
import dev.offload.autoconfigure.OffloadProperties.Host;
import dev.offload.autoconfigure.diagnostics.InvalidOffloadConfigurationException;
import dev.offload.backend.host.HostBackend;
import dev.offload.spi.Backend;

/**
 * Creates the {@link Backend} that {@code offload.backend} asks for: {@code host}, {@code cuda} (or a startup
 * failure that says why CUDA is not usable), or for {@code auto} CUDA when it is usable, else host with one log line
 * that says why.
 */
final class BackendFactory {

	private static final String BACKEND_PROPERTY = "offload.backend";

	private static final Logger logger = LoggerFactory.getLogger(BackendFactory.class);

	private final OffloadProperties properties;

	private final CudaBackendSupport cuda;

	private final String cudaAbsence;

	/**
	 * Creates a factory.
	 * @param properties the configuration
	 * @param cuda the CUDA backend, or {@code null} if it is not on the classpath
	 * @param cudaAbsence why {@code cuda} is {@code null}
	 */
	BackendFactory(OffloadProperties properties, CudaBackendSupport cuda, String cudaAbsence) {
		this.properties = properties;
		this.cuda = cuda;
		this.cudaAbsence = cudaAbsence;
	}

	/**
	 * Decides which backend to create, without creating it.
	 * @return the decision
	 */
	Choice choose() {
		BackendType type = this.properties.getBackend();
		if (type == BackendType.HOST) {
			return new Choice(BackendType.HOST, null);
		}
		String reason = this.cudaAbsence;
		if (this.cuda != null) {
			Availability availability = this.cuda.probe();
			if (availability.usable()) {
				return new Choice(BackendType.CUDA, null);
			}
			reason = availability.reason();
		}
		return (type == BackendType.AUTO) ? new Choice(BackendType.HOST, reason) : new Choice(null, reason);
	}

	/**
	 * Creates the backend.
	 * @return the backend
	 * @throws InvalidOffloadConfigurationException if {@code offload.backend} is {@code cuda} and CUDA is not usable,
	 * or a host setting is out of bounds
	 */
	Backend create() {
		Choice choice = choose();
		if (choice.type() == null) {
			throw cudaUnusable(choice.reason(), null);
		}
		if (choice.type() == BackendType.HOST) {
			if (choice.reason() != null) {
				logger.info("Offload uses the host backend (devices emulated on the CPU): {}", choice.reason());
			}
			return createHost(this.properties.getHost());
		}
		try {
			return this.cuda.create();
		}
		catch (IllegalStateException ex) {
			if (this.properties.getBackend() == BackendType.CUDA) {
				throw cudaUnusable(ex.getMessage(), ex.getCause());
			}
			logger.warn("Offload uses the host backend (devices emulated on the CPU): the CUDA backend could not "
					+ "start: {}", ex.getMessage());
			return createHost(this.properties.getHost());
		}
	}

	private static InvalidOffloadConfigurationException cudaUnusable(String reason, Throwable cause) {
		return new InvalidOffloadConfigurationException(BACKEND_PROPERTY, "cuda",
				"CUDA is not usable: " + reason,
				"Run on a machine with an NVIDIA GPU and driver that this process can see (check nvidia-smi and "
						+ "CUDA_VISIBLE_DEVICES), with JCuda and its natives for this platform on the classpath "
						+ "(offload-spring-boot-starter brings them for linux-x86_64); or set '"
						+ BACKEND_PROPERTY + "' to 'auto' to fall back to the host emulation, or "
						+ "to 'host'.",
				cause);
	}

	/**
	 * Creates the host backend from {@code offload.host.*}.
	 * @param host the settings
	 * @return the backend
	 * @throws InvalidOffloadConfigurationException naming the setting out of bounds
	 */
	static HostBackend createHost(Host host) {
		HostBackend.Builder builder = HostBackend.builder();
		check("offload.host.device-count", host.getDeviceCount(), "Set 'offload.host.device-count' between 1 and 64.",
				() -> builder.deviceCount(host.getDeviceCount()));
		Integer workers = host.getWorkersPerDevice();
		if (workers != null) {
			check("offload.host.workers-per-device", workers, "Set 'offload.host.workers-per-device' to 1 or more, "
					+ "or remove it for one worker per processor.", () -> builder.workersPerDevice(workers));
		}
		DataSize memory = host.getMemory();
		if (memory != null) {
			check("offload.host.memory", memory, "Set 'offload.host.memory' to a positive size, such as 8GB, or "
					+ "remove it to report the JVM's maximum heap.", () -> builder.memoryBytes(memory.toBytes()));
		}
		List<String> names = host.getDeviceNames();
		String namesAction = "List one name in 'offload.host.device-names' for each of the " + host.getDeviceCount()
				+ " device(s) of 'offload.host.device-count', or remove it.";
		check("offload.host.device-names", names, namesAction, () -> builder.deviceNames(names));
		try {
			return builder.build();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOffloadConfigurationException("offload.host.device-names", names, ex.getMessage(),
					namesAction, ex);
		}
	}

	private static void check(String property, Object value, String action, Runnable call) {
		try {
			call.run();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOffloadConfigurationException(property, value, ex.getMessage(), action, ex);
		}
	}

	/**
	 * The backend to create.
	 *
	 * @param type {@code HOST} or {@code CUDA}, or {@code null} when CUDA was required and is not usable
	 * @param reason why CUDA is not used, or {@code null}
	 */
	record Choice(BackendType type, String reason) {

	}

}
