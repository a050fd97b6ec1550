package dev.offload.test.fault;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendGraph;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;
import dev.offload.test.fault.FaultInjectingBackend.Operation;

/**
 * A stream whose calls may fail; a failed launch poisons the stream until it is
 * destroyed, as failed work would.
 */
final class FaultyStream implements BackendStream {

	private final FaultyDevice device;

	private final BackendStream delegate;

	private volatile @Nullable BackendException failedWork;

	BackendStream delegate() {
		return this.delegate;
	}

	FaultyStream(FaultyDevice device, BackendStream delegate) {
		this.device = device;
		this.delegate = delegate;
	}

	@Override
	public void copy(NativeMemory src, long srcOffset, NativeMemory dst, long dstOffset, long bytes) {
		this.device.check(Operation.COPY, "copy");
		this.delegate.copy(src, srcOffset, dst, dstOffset, bytes);
	}

	@Override
	public void fill(NativeMemory dst, long offset, long bytes, byte value) {
		this.device.check(Operation.FILL, "fill");
		this.delegate.fill(dst, offset, bytes, value);
	}

	@Override
	public void launch(BackendKernel kernel, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedMemoryBytes, Object[] args) {
		BackendException error = this.device.fault(Operation.LAUNCH, "kernel '" + kernel.name() + "'");
		if (error != null && this.failedWork == null) {
			this.failedWork = error;
		}
		this.delegate.launch(kernel, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemoryBytes, args);
	}

	/**
	 * Captures through this stream, so that the captured steps meet the same injected
	 * faults as eager ones.
	 */
	@Override
	public BackendGraph capture(Consumer<BackendStream> steps) {
		return this.delegate.capture((capturing) -> steps.accept(this));
	}

	@Override
	public void launch(BackendGraph graph) {
		BackendException error = this.device.fault(Operation.LAUNCH, "graph");
		if (error != null && this.failedWork == null) {
			this.failedWork = error;
		}
		this.delegate.launch(graph);
	}

	@Override
	public void record(BackendEvent event) {
		this.delegate.record(event);
	}

	@Override
	public void waitFor(BackendEvent event) {
		this.delegate.waitFor(event);
	}

	@Override
	public boolean query() {
		boolean idle = this.delegate.query();
		if (idle) {
			// An injected query fault stands for work that failed, so it fires only once
			// the work is over.
			this.device.check(Operation.QUERY, "query");
			BackendException error = this.failedWork;
			if (error != null) {
				throw error;
			}
		}
		return idle;
	}

	@Override
	public void synchronize() {
		this.delegate.synchronize();
		this.device.check(Operation.SYNCHRONIZE, "synchronize");
		BackendException error = this.failedWork;
		if (error != null) {
			throw error;
		}
	}

	@Override
	public Object handle() {
		return this.delegate.handle();
	}

	@Override
	public <T> @Nullable T handle(Class<T> type) {
		return this.delegate.handle(type);
	}

	@Override
	public long nativeAddress() {
		return this.delegate.nativeAddress();
	}

	@Override
	public void makeCurrent() {
		this.delegate.makeCurrent();
	}

	@Override
	public <T> @Nullable T libraryBinding(Class<T> type) {
		return this.delegate.libraryBinding(type);
	}

	/**
	 * Fails a library call (cuBLAS, or its host emulation) at the call, as an error
	 * status would: the session's work fails with it.
	 */
	@Override
	public void callLibrary(String operation, Runnable call) {
		this.device.check(Operation.LIBRARY, operation);
		this.delegate.callLibrary(operation, call);
	}

	@Override
	public void destroy() {
		this.delegate.destroy();
	}

}
