package dev.offload.spi;

import java.util.Optional;

import dev.offload.kernel.ModuleDefinition;

/**
 * One device of a {@link Backend}: the factory for its streams, events, memory and
 * modules.
 */
public interface BackendDevice {

	/**
	 * Returns what the device is.
	 * @return the device's static description
	 */
	DeviceInfo info();

	/**
	 * Returns the device's id without describing it, so that a registry can select
	 * devices without touching the ones it leaves out (on CUDA, {@link #info()} needs the
	 * device's context).
	 * @return the id, the same as {@code info().id()}
	 */
	default int deviceId() {
		return info().id();
	}

	/**
	 * Returns the device's UUID, by which NVML finds it.
	 * @return the UUID as {@code 8-4-4-4-12} hex digits without the {@code GPU-} prefix,
	 * or empty where unknown (the default)
	 */
	default Optional<String> uuid() {
		return Optional.empty();
	}

	/**
	 * Creates a stream.
	 * @param priority a native priority within {@link DeviceInfo#leastPriority()} ..
	 * {@link DeviceInfo#greatestPriority()}
	 * @return a new stream with no work on it
	 * @throws dev.offload.BackendException if the runtime refuses
	 */
	BackendStream createStream(int priority);

	/**
	 * Creates an event with timing disabled.
	 * @return a new event, complete until first recorded
	 * @throws dev.offload.BackendException if the runtime refuses
	 */
	BackendEvent createEvent();

	/**
	 * Allocates device memory.
	 * @param bytes the size, at least 1
	 * @return the memory
	 * @throws dev.offload.BackendException if the runtime refuses (out of memory among
	 * others)
	 */
	NativeMemory allocateDevice(long bytes);

	/**
	 * Allocates device memory in {@code stream}'s order ({@code cuMemAllocAsync} on
	 * CUDA): usable by work enqueued on {@code stream} after this call, and by any stream
	 * once that work is done. Neither call synchronizes the device.
	 * @param bytes the size, at least 1
	 * @param stream the stream whose order the allocation joins
	 * @return the memory, to be freed in a stream's order with
	 * {@link NativeMemory#free(BackendStream)}
	 * @throws dev.offload.BackendException if the runtime refuses (out of memory among
	 * others: see {@link dev.offload.BackendException#isOutOfMemory()})
	 */
	default NativeMemory allocateDevice(long bytes, BackendStream stream) {
		return allocateDevice(bytes);
	}

	/**
	 * Returns the device memory free as the runtime sees it. Slow on CUDA
	 * ({@code cuMemGetInfo}): called only to describe an out-of-memory failure.
	 * @return the free bytes, or -1 if unknown
	 */
	default long freeMemoryBytes() {
		return -1;
	}

	/**
	 * Allocates page-locked host memory that copies can use asynchronously.
	 * @param bytes the size, at least 1
	 * @return the memory, with a {@link NativeMemory#hostView() host view}
	 * @throws dev.offload.BackendException if the runtime refuses
	 */
	NativeMemory allocateHost(long bytes);

	/**
	 * Loads a module on this device.
	 * @param definition the module's code for the backends that can run it
	 * @return the loaded module
	 * @throws dev.offload.BackendException if the module cannot be loaded (no code for
	 * this backend among others)
	 */
	BackendModule loadModule(ModuleDefinition definition);

	/**
	 * Releases the device's resources (the primary context on CUDA). Called once, when no
	 * stream is lent.
	 */
	void close();

}
