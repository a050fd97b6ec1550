package dev.offload;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.offload.internal.memory.DeviceMemory;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A session's stream as a {@link StreamLibrary} sees it: its device, its native address,
 * the memory of the session's buffers, and, while a handle is opened, workspace from the
 * device's memory.
 */
public final class LibraryStream {

	private final OffloadSession session;

	private final Device device;

	private final BackendStream backend;

	/**
	 * Workspace taken while a handle opens; {@code null} outside
	 * {@link StreamLibrary#open}.
	 */
	private @Nullable List<Workspace> opening;

	LibraryStream(OffloadSession session, BackendStream backend) {
		this.session = session;
		this.device = session.device();
		this.backend = backend;
	}

	/**
	 * Returns the stream's device.
	 * @return the device
	 */
	public Device device() {
		return this.device;
	}

	/**
	 * Tells whether the stream is a native one that a native library enqueues on (it has
	 * a {@linkplain #nativeAddress() native address}); the host emulation's streams are
	 * not, and a library emulates its calls there instead.
	 * @return {@code true} on a GPU backend
	 */
	public boolean isNative() {
		try {
			this.backend.nativeAddress();
			return true;
		}
		catch (UnsupportedOperationException ex) {
			return false;
		}
	}

	/**
	 * Returns the native stream's address ({@code CUstream}, also a
	 * {@code cudaStream_t}).
	 * @return the address
	 * @throws UnsupportedOperationException on the host emulation
	 */
	public long nativeAddress() {
		return this.backend.nativeAddress();
	}

	/**
	 * Returns the backend's own binding of a native library the handle calls, where the
	 * backend brings one (the FFM backend's binding of cuBLAS); a library loads its
	 * default binding otherwise.
	 * @param <T> the binding's loader type
	 * @param type the type the library asks for
	 * @return the backend's binding, or {@code null}
	 */
	public <T> @Nullable T libraryBinding(Class<T> type) {
		return this.backend.libraryBinding(type);
	}

	/**
	 * Makes the calling thread ready for a native call that concerns the stream without
	 * enqueueing on it, such as creating the library's handle in
	 * {@link StreamLibrary#open}: the device's context current on CUDA.
	 */
	public void makeCurrent() {
		this.backend.makeCurrent();
	}

	/**
	 * Queries the stream without waiting: whether its work is done, or the error of work
	 * that failed (a sticky error of the device included). A library asks after an error
	 * status, to find the CUDA error behind it.
	 * @return {@code true} when the stream is idle
	 * @throws BackendException if the stream's work failed
	 */
	public boolean query() {
		return this.backend.query();
	}

	/**
	 * Returns the memory of a device buffer that a call reads or writes, after checking
	 * that it is open, of this stream's device, and holds the range.
	 * @param buffer the buffer
	 * @param offset the first byte the call touches
	 * @param bytes how many bytes from there it touches
	 * @param operand the operand's name, for the exception
	 * @return the buffer's whole memory (the call adds the offset itself)
	 * @throws IllegalArgumentException if the buffer is of another device or too small
	 * @throws IllegalStateException if the buffer is closed
	 */
	public NativeMemory memory(DeviceBuffer buffer, long offset, long bytes, String operand) {
		if (buffer == null) {
			throw new IllegalArgumentException(operand + " must not be null");
		}
		NativeMemory memory = buffer.memoryFor(this.device, operand);
		buffer.checkRange(offset, bytes, operand);
		return memory;
	}

	/**
	 * Allocates device memory that the handle being opened keeps until it is closed: in
	 * the stream's order, counted in the device's memory budget (it waits for the budget
	 * up to the borrow timeout of {@link StreamPriority#NORMAL} streams) and in
	 * {@link Device#libraryStatistics}.
	 * @param bytes the size, at least 1
	 * @return the memory
	 * @throws IllegalStateException outside {@link StreamLibrary#open}
	 * @throws MemoryBudgetExceededException if the budget did not admit it in time
	 * @throws DeviceOutOfMemoryException if the device had no memory
	 */
	public NativeMemory allocateWorkspace(long bytes) {
		List<Workspace> taken = this.opening;
		if (taken == null) {
			throw new IllegalStateException("Workspace is allocated only while a library's handle opens");
		}
		long charged = Device.allocationSize(bytes);
		DeviceMemory deviceMemory = this.device.sessions().memory;
		deviceMemory.acquireBudget(charged, this.device.streamPool().borrowTimeoutNanos(StreamPriority.NORMAL));
		NativeMemory memory;
		try {
			memory = this.device.sessions().acquireDeviceMemory(bytes, this.backend);
		}
		catch (RuntimeException ex) {
			deviceMemory.releaseBudget(charged);
			throw ex;
		}
		taken.add(new Workspace(memory, charged));
		return memory;
	}

	/**
	 * Runs a call of the library on this stream: at once, with the device's context
	 * current, on a native stream (the library enqueues its work on the stream itself);
	 * in the stream's order on a worker of the host emulation, where what the call throws
	 * fails the session's work. Either way the work is the session's: what the call
	 * throws (a library's error status) fails the session's work, as a failed copy or
	 * launch does, and a sticky error fails the device. Check the operands before.
	 * @param operation the call's name, e.g. {@code cublasSgemm_v2}
	 * @param call the call
	 * @throws BackendException if the backend or the library refuses the call
	 */
	public void call(String operation, Runnable call) {
		this.session.work.enqueue(() -> this.backend.callLibrary(operation, call));
	}

	void beginOpening() {
		this.opening = new ArrayList<>(1);
	}

	List<Workspace> endOpening() {
		List<Workspace> taken = (this.opening != null) ? this.opening : List.of();
		this.opening = null;
		return taken;
	}

	/** Device memory a handle holds, and what the budget charged for it. */
	record Workspace(NativeMemory memory, long charged) {
	}

}
