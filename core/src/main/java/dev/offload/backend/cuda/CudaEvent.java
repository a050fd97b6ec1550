package dev.offload.backend.cuda;

import dev.offload.BackendException;
import dev.offload.spi.BackendEvent;
import jcuda.driver.CUevent;

/**
 * An event created with {@code CU_EVENT_DISABLE_TIMING} (cheaper to record and query).
 */
final class CudaEvent implements BackendEvent {

	private final CudaDevice device;

	private final CUevent event;

	CudaEvent(CudaDevice device, CUevent event) {
		this.device = device;
		this.event = event;
	}

	CUevent event() {
		return this.event;
	}

	@Override
	public boolean query() {
		this.device.makeCurrent();
		return CudaErrors.isDone("cuEventQuery", CudaCalls.cuEventQuery(this.event), this.device.ordinal());
	}

	@Override
	public void synchronize() {
		this.device.makeCurrent();
		CudaErrors.check("cuEventSynchronize", CudaCalls.cuEventSynchronize(this.event), this.device.ordinal());
	}

	@Override
	public Object handle() {
		return this.event;
	}

	@Override
	public void destroy() {
		try {
			this.device.makeCurrent();
			CudaErrors.checkQuietly("cuEventDestroy", CudaCalls.cuEventDestroy(this.event), this.device.ordinal());
		}
		catch (BackendException ex) {
			CudaErrors.logReleaseFailure(ex);
		}
	}

}
