package dev.offload;

import java.util.List;

import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ParamKind;
import dev.offload.spi.BackendKernel;
import dev.offload.spi.NativeMemory;

/**
 * A kernel of a loaded {@link KernelModule}, bound to one device. Launch it with
 * {@link OffloadSession#launch(Kernel, LaunchConfig, Object...)}; arguments are checked
 * against {@link #parameters()} first, so a wrong call is an exception, never a native
 * crash.
 */
public final class Kernel {

	private final KernelModule module;

	private final BackendKernel backendKernel;

	private final List<ParamKind> parameters;

	Kernel(KernelModule module, BackendKernel backendKernel, List<ParamKind> parameters) {
		this.module = module;
		this.backendKernel = backendKernel;
		this.parameters = List.copyOf(parameters);
	}

	/**
	 * Returns the kernel's name.
	 * @return the name
	 */
	public String name() {
		return this.backendKernel.name();
	}

	/**
	 * Returns the kernel's parameters.
	 * @return the parameter kinds, in order
	 */
	public List<ParamKind> parameters() {
		return this.parameters;
	}

	/**
	 * Returns the device the kernel is loaded on.
	 * @return the device
	 */
	public Device device() {
		return this.module.device();
	}

	/**
	 * Returns the module the kernel belongs to.
	 * @return the module
	 */
	public KernelModule module() {
		return this.module;
	}

	BackendKernel backendKernel() {
		return this.backendKernel;
	}

	/**
	 * Checks {@code args} against the parameters and turns buffers into native memory.
	 * @param args the launch arguments
	 * @return the arguments as the backend takes them, in a new array
	 * @throws IllegalArgumentException naming the first argument that does not fit
	 */
	Object[] toBackendArguments(Object[] args) {
		return toBackendArguments(args, new Object[(args != null) ? args.length : 0]);
	}

	/**
	 * Checks {@code args} against the parameters and turns buffers into native memory,
	 * into {@code converted}.
	 * @param args the launch arguments
	 * @param converted where the arguments as the backend takes them go, as long as
	 * {@code args}
	 * @return {@code converted}
	 * @throws IllegalArgumentException naming the first argument that does not fit
	 */
	Object[] toBackendArguments(Object[] args, Object[] converted) {
		if (args == null || args.length != this.parameters.size()) {
			throw new IllegalArgumentException("Kernel '" + name() + "' takes " + this.parameters.size() + " arguments "
					+ this.parameters + ", was given " + ((args != null) ? args.length : 0));
		}
		for (int i = 0; i < args.length; i++) {
			ParamKind kind = this.parameters.get(i);
			Object arg = args[i];
			if (!accepts(kind, arg)) {
				throw new IllegalArgumentException("Argument " + i + " of kernel '" + name() + "' must be " + kind
						+ " (" + argumentType(kind).getSimpleName() + "), was "
						+ ((arg != null) ? arg.getClass().getSimpleName() + " " + arg : "null"));
			}
			converted[i] = (arg instanceof DeviceBuffer buffer) ? BufferExtent.of(memoryOf(buffer, i), buffer.size())
					: arg;
		}
		return converted;
	}

	/**
	 * Returns a buffer argument's memory; the message naming the argument is built only
	 * for a buffer that is closed or on another device.
	 */
	private NativeMemory memoryOf(DeviceBuffer buffer, int index) {
		if (!buffer.isClosed() && buffer.device() == device()) {
			return buffer.memory();
		}
		return buffer.memoryFor(device(), "argument " + index + " of kernel '" + name() + "'");
	}

	private static boolean accepts(ParamKind kind, Object argument) {
		return argumentType(kind).isInstance(argument) || (kind == ParamKind.INT64 && argument instanceof DeviceBuffer);
	}

	private static Class<?> argumentType(ParamKind kind) {
		return switch (kind) {
			case INT32 -> Integer.class;
			case INT64 -> Long.class;
			case FLOAT32 -> Float.class;
			case FLOAT64 -> Double.class;
			case POINTER -> DeviceBuffer.class;
		};
	}

	@Override
	public String toString() {
		return "Kernel[" + name() + this.parameters + " on device " + device().id() + "]";
	}

}
