package dev.offload;

import org.jspecify.annotations.Nullable;

import dev.offload.spi.NativeMemory;

/**
 * Device memory. See {@link Buffer} for who owns it and when it is given back.
 */
public final class DeviceBuffer extends Buffer {

	DeviceBuffer(Device device, NativeMemory memory, long size, @Nullable OffloadSession owner) {
		super(device, memory, size, owner);
	}

}
