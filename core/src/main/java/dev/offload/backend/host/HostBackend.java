package dev.offload.backend.host;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offload.InvalidSettingException;
import dev.offload.kernel.HostKernel;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;

/**
 * Devices emulated on the CPU, with the semantics of CUDA streams: work on one stream
 * runs in order; different streams run concurrently on a bounded set of worker threads
 * per device (its "multiprocessors"), higher-priority streams first; synchronize waits
 * for exactly the work enqueued before it; events order work across streams. Device
 * memory is real memory; kernels are Java implementations ({@link HostKernel}) run over
 * the launch's grid, whose blocks every worker takes, chunk by chunk, as a GPU's
 * multiprocessors take thread blocks.
 * <p>
 * It is the default on machines without a GPU, so that applications start, demo and test
 * anywhere, and it can emulate several devices. A kernel that reads or writes outside its
 * buffer fails its device with a sticky error, as a GPU's illegal address would.
 */
public final class HostBackend implements Backend {

	/**
	 * The backend's name in configuration.
	 */
	public static final String NAME = "host";

	private static final Logger logger = LoggerFactory.getLogger(HostBackend.class);

	private final List<HostDevice> devices;

	/** The modules whose uncompiled CUDA source was logged, by name. */
	private final Set<String> uncompiledSources = ConcurrentHashMap.newKeySet();

	private HostBackend(Builder builder) {
		List<HostDevice> list = new ArrayList<>();
		for (int id = 0; id < builder.deviceCount; id++) {
			String name = (builder.deviceNames != null) ? builder.deviceNames.get(id) : "Host device " + id;
			list.add(new HostDevice(id, name, builder.workersPerDevice, builder.memoryBytes, this::sourceNotCompiled));
		}
		this.devices = Collections.unmodifiableList(list);
	}

	/**
	 * Says once per module that its CUDA C source was not compiled: an error in it would
	 * otherwise show only on a GPU.
	 */
	private void sourceNotCompiled(ModuleDefinition definition) {
		if (definition.hasCudaSource() && this.uncompiledSources.add(definition.name())) {
			logger.warn("Module '{}' has CUDA C source ({}) that was not compiled: the host backend does not compile "
					+ "CUDA C and runs the module's host kernels, so an error in the source shows only on a GPU. "
					+ "To check that it compiles without a GPU, run dev.offload.compile.KernelPrecompiler on it",
					definition.name(), definition.cudaSource().name());
		}
	}

	/**
	 * Starts building a host backend: one device, one worker per CPU (at least 2).
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public boolean runsWorkOnHostProcessors() {
		return true;
	}

	@Override
	public List<BackendDevice> devices() {
		return List.copyOf(this.devices);
	}

	@Override
	public void close() {
		this.devices.forEach(HostDevice::close);
	}

	/**
	 * Builds a {@link HostBackend}.
	 */
	public static final class Builder {

		private int deviceCount = 1;

		private @Nullable List<String> deviceNames;

		private int workersPerDevice = Math.max(2, Runtime.getRuntime().availableProcessors());

		private long memoryBytes = Runtime.getRuntime().maxMemory();

		private Builder() {
		}

		/**
		 * Sets the number of emulated devices.
		 * @param count from 1 to 64
		 * @return this builder
		 */
		public Builder deviceCount(int count) {
			if (count < 1 || count > 64) {
				throw new InvalidSettingException("deviceCount", "deviceCount must be between 1 and 64, was " + count);
			}
			this.deviceCount = count;
			return this;
		}

		/**
		 * Names the emulated devices.
		 * @param names one name per device, or {@code null}/empty for
		 * {@code "Host device N"}
		 * @return this builder
		 */
		public Builder deviceNames(@Nullable List<String> names) {
			this.deviceNames = (names != null && !names.isEmpty()) ? List.copyOf(names) : null;
			return this;
		}

		/**
		 * Sets the worker threads per device (its multiprocessors), which bound how many
		 * streams, or chunks of one launch's blocks, run at once.
		 * @param workers at least 1
		 * @return this builder
		 */
		public Builder workersPerDevice(int workers) {
			if (workers < 1) {
				throw new InvalidSettingException("workersPerDevice",
						"workersPerDevice must be at least 1, was " + workers);
			}
			this.workersPerDevice = workers;
			return this;
		}

		/**
		 * Sets the memory each device reports.
		 * @param bytes at least 1
		 * @return this builder
		 */
		public Builder memoryBytes(long bytes) {
			if (bytes < 1) {
				throw new InvalidSettingException("memoryBytes", "memoryBytes must be at least 1, was " + bytes);
			}
			this.memoryBytes = bytes;
			return this;
		}

		int deviceCount() {
			return this.deviceCount;
		}

		/**
		 * Builds the backend.
		 * @return the backend
		 */
		public HostBackend build() {
			if (this.deviceNames != null && this.deviceNames.size() != this.deviceCount) {
				throw new InvalidSettingException("deviceNames",
						"deviceNames must name each of the " + this.deviceCount + " devices, was " + this.deviceNames);
			}
			return new HostBackend(this);
		}

	}

}
