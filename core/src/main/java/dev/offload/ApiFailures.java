package dev.offload;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.completion.CompletionFailures;
import dev.offload.internal.memory.MemoryFailures;

/**
 * The API's exceptions for the failures the memory and completion rooms report: they name
 * no type of this package (which opens them), so the device hands them this.
 */
enum ApiFailures implements MemoryFailures, CompletionFailures {

	INSTANCE;

	@Override
	public boolean isOutOfMemory(RuntimeException failure) {
		return failure instanceof BackendException backend && backend.isOutOfMemory();
	}

	@Override
	public RuntimeException deviceOutOfMemory(int deviceId, long requestedBytes, long usedBytes, long cachedBytes,
			long freeBytes, long totalBytes, RuntimeException cause) {
		return new DeviceOutOfMemoryException(deviceId, requestedBytes, usedBytes, cachedBytes, freeBytes, totalBytes,
				cause);
	}

	@Override
	public RuntimeException hostStagingOutOfMemory(int deviceId, long requestedBytes, long usedBytes, long cachedBytes,
			long totalBytes, RuntimeException cause) {
		return new HostStagingOutOfMemoryException(deviceId, requestedBytes, usedBytes, cachedBytes, totalBytes, cause);
	}

	@Override
	public RuntimeException budgetExceeded(int deviceId, long budgetBytes, long usedBytes, long requestedBytes,
			Duration waited) {
		return new MemoryBudgetExceededException(deviceId, budgetBytes, usedBytes, requestedBytes, waited);
	}

	@Override
	public RuntimeException tenantLimitExceeded(int deviceId, String tenant, long limitBytes, long heldBytes,
			long requestedBytes, Duration waited) {
		return new MemoryBudgetExceededException(deviceId, tenant, limitBytes, heldBytes, requestedBytes, waited);
	}

	@Override
	public RuntimeException interrupted(String message, InterruptedException cause) {
		return new OffloadException(message, cause);
	}

	@Override
	public RuntimeException shutDown(String message) {
		return new StreamPoolClosedException(message);
	}

	@Override
	public RuntimeException workFailed(@Nullable Throwable failure) {
		return new OffloadException("The session's work failed", failure);
	}

}
