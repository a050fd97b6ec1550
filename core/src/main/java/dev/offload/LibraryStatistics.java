package dev.offload;

/**
 * What a {@link StreamLibrary} holds and did on one device: its handles (one per pooled
 * stream that called it), their workspace, and the calls. After warm-up, a steady load
 * creates no handle and allocates no workspace.
 *
 * @param library the library's name
 * @param deviceId the device
 * @param handlesCreated handles opened since the device started
 * @param handlesClosed handles closed with their streams
 * @param workspaceAllocations workspace allocations the handles made
 * @param workspaceBytes the workspace the open handles hold now (charged to the budget)
 * @param calls calls made through sessions
 * @param failedCalls calls that threw
 */
public record LibraryStatistics(String library, int deviceId, long handlesCreated, long handlesClosed,
		long workspaceAllocations, long workspaceBytes, long calls, long failedCalls) {

	/**
	 * Returns the handles open now.
	 * @return created less closed
	 */
	public long openHandles() {
		return this.handlesCreated - this.handlesClosed;
	}

}
