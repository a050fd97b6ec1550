package dev.offload.backend.ffm;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.offload.BackendException;
import dev.offload.spi.BackendEvent;

/**
 * An event created with {@code CU_EVENT_DISABLE_TIMING}; its handle is its address as a
 * {@link Long}.
 */
final class FfmEvent implements BackendEvent {

	private final FfmDevice device;

	private final long event;

	private final Long handle;

	private final AtomicBoolean destroyed = new AtomicBoolean();

	FfmEvent(FfmDevice device, long event) {
		this.device = device;
		this.event = event;
		this.handle = event;
	}

	long address() {
		return this.event;
	}

	@Override
	public boolean query() {
		this.device.makeCurrent();
		return CuErrors.isDone("cuEventQuery", Cu.cuEventQuery(this.event), this.device.ordinal());
	}

	@Override
	public void synchronize() {
		this.device.makeCurrent();
		CuErrors.check("cuEventSynchronize", Cu.cuEventSynchronize(this.event), this.device.ordinal());
	}

	@Override
	public Object handle() {
		return this.handle;
	}

	@Override
	public void destroy() {
		if (!this.destroyed.compareAndSet(false, true)) {
			return;
		}
		try {
			this.device.makeCurrent();
			CuErrors.checkQuietly("cuEventDestroy", Cu.cuEventDestroy(this.event), this.device.ordinal());
		}
		catch (BackendException ex) {
			CuErrors.logReleaseFailure(ex);
		}
	}

}
