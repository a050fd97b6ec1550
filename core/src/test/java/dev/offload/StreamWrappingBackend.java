package dev.offload;

import java.util.List;

import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.Backend;
import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendEvent;
import dev.offload.spi.BackendModule;
import dev.offload.spi.BackendStream;
import dev.offload.spi.DeviceInfo;
import dev.offload.spi.NativeMemory;

/**
 * A backend whose devices are its delegate's, with the streams they create passed through
 * {@link #createStream}: tests wrap, count or refuse streams there.
 */
abstract class StreamWrappingBackend implements Backend {

	private final Backend delegate;

	StreamWrappingBackend(Backend delegate) {
		this.delegate = delegate;
	}

	/**
	 * Creates a stream of {@code device}.
	 * @param device the delegate's device
	 * @param priority the stream's priority
	 * @return the stream Offload gets
	 */
	abstract BackendStream createStream(BackendDevice device, int priority);

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public List<BackendDevice> devices() {
		return this.delegate.devices().stream().map((device) -> (BackendDevice) new BackendDevice() {

			@Override
			public DeviceInfo info() {
				return device.info();
			}

			@Override
			public BackendStream createStream(int priority) {
				return StreamWrappingBackend.this.createStream(device, priority);
			}

			@Override
			public BackendEvent createEvent() {
				return device.createEvent();
			}

			@Override
			public NativeMemory allocateDevice(long bytes) {
				return device.allocateDevice(bytes);
			}

			@Override
			public NativeMemory allocateHost(long bytes) {
				return device.allocateHost(bytes);
			}

			@Override
			public BackendModule loadModule(ModuleDefinition definition) {
				return device.loadModule(definition);
			}

			@Override
			public void close() {
				device.close();
			}

		}).toList();
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
