package dev.offload.test.fault;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.offload.BackendException;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;
import dev.offload.test.fault.FaultInjectingBackend.Operation;

/**
 * A device whose streams, events and memory may fail as its {@link FaultInjectingBackend}
 * says.
 */
final class FaultyDevice implements BackendDevice {

	private final FaultInjectingBackend faults;

	private final BackendDevice delegate;

	FaultyDevice(FaultInjectingBackend faults, BackendDevice delegate) {
		this.faults = faults;
		this.delegate = delegate;
	}

	@Override
	public DeviceInfo info() {
		return this.delegate.info();
	}

	@Override
	public Optional<String> uuid() {
		return this.delegate.uuid();
	}

	void check(Operation operation, String call) {
		BackendException error = this.faults.onCall(operation, info().id(), call);
		if (error != null) {
			throw error;
		}
	}

	@Nullable BackendException fault(Operation operation, String call) {
		return this.faults.onCall(operation, info().id(), call);
	}

	@Override
	public BackendStream createStream(int priority) {
		check(Operation.CREATE_STREAM, "createStream");
		return new FaultyStream(this, this.delegate.createStream(priority));
	}

	@Override
	public BackendEvent createEvent() {
		check(Operation.CREATE_EVENT, "createEvent");
		return this.delegate.createEvent();
	}

	@Override
	public NativeMemory allocateDevice(long bytes) {
		check(Operation.ALLOCATE, "allocateDevice");
		return this.delegate.allocateDevice(bytes);
	}

	@Override
	public NativeMemory allocateDevice(long bytes, BackendStream stream) {
		check(Operation.ALLOCATE, "allocateDevice");
		BackendStream own = (stream instanceof FaultyStream faulty) ? faulty.delegate() : stream;
		return this.delegate.allocateDevice(bytes, own);
	}

	@Override
	public long freeMemoryBytes() {
		return this.delegate.freeMemoryBytes();
	}

	@Override
	public NativeMemory allocateHost(long bytes) {
		check(Operation.ALLOCATE_HOST, "allocateHost");
		return this.delegate.allocateHost(bytes);
	}

	@Override
	public BackendModule loadModule(ModuleDefinition definition) {
		return this.delegate.loadModule(definition);
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
