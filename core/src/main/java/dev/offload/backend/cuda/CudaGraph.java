package dev.offload.backend.cuda;

import java.util.concurrent.atomic.AtomicBoolean;

import jcuda.driver.CUgraphExec;

import dev.offload.BackendException;
import dev.offload.spi.BackendGraph;

/**
 * An instantiated CUDA graph of one device.
 */
final class CudaGraph implements BackendGraph {

	private final CudaDevice device;

	private final CUgraphExec exec;

	private final AtomicBoolean destroyed = new AtomicBoolean();

	CudaGraph(CudaDevice device, CUgraphExec exec) {
		this.device = device;
		this.exec = exec;
	}

	CUgraphExec exec() {
		return this.exec;
	}

	@Override
	public void destroy() {
		if (!this.destroyed.compareAndSet(false, true)) {
			return;
		}
		try {
			this.device.makeCurrent();
			CudaErrors.checkQuietly("cuGraphExecDestroy", CudaCalls.cuGraphExecDestroy(this.exec),
					this.device.ordinal());
		}
		catch (BackendException ex) {
			CudaErrors.logReleaseFailure(ex);
		}
	}

	@Override
	public String toString() {
		return "CudaGraph[" + this.exec + " on device " + this.device.ordinal() + "]";
	}

}
