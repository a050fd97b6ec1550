package dev.offload;

import dev.offload.internal.memory.MemoryFailures;

/**
 * The API's failures for tests of the rooms that build a room alone, as the device would.
 */
public final class RoomFailures {

	private RoomFailures() {
	}

	/**
	 * Returns the failures a device gives its memory.
	 * @return the API's memory failures
	 */
	public static MemoryFailures memory() {
		return ApiFailures.INSTANCE;
	}

}
