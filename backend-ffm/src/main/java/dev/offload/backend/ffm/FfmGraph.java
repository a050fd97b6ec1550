package dev.offload.backend.ffm;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.offload.BackendException;
import dev.offload.spi.BackendGraph;

/**
 * An instantiated CUDA graph of one device.
 */
final class FfmGraph implements BackendGraph {

	private final FfmDevice device;

	private final long exec;

	private final AtomicBoolean destroyed = new AtomicBoolean();

	FfmGraph(FfmDevice device, long exec) {
		this.device = device;
		this.exec = exec;
	}

	long exec() {
		return this.exec;
	}

	@Override
	public void destroy() {
		if (!this.destroyed.compareAndSet(false, true)) {
			return;
		}
		try {
			this.device.makeCurrent();
			CuErrors.checkQuietly("cuGraphExecDestroy", Cu.cuGraphExecDestroy(this.exec), this.device.ordinal());
		}
		catch (BackendException ex) {
			CuErrors.logReleaseFailure(ex);
		}
	}

	@Override
	public String toString() {
		return "FfmGraph[0x" + Long.toHexString(this.exec) + " on device " + this.device.ordinal() + "]";
	}

}
