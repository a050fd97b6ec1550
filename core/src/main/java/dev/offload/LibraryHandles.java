package dev.offload;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handles {@link StreamLibrary StreamLibraries} keep on a device's pooled streams,
 * with their workspace, and what each library did on the device. A stream is lent to one
 * session at a time, so its handles are opened by one thread at a time; they are closed
 * when the pool destroys the stream, which is then lent to nobody.
 */
final class LibraryHandles {

	private static final Logger logger = LoggerFactory.getLogger(LibraryHandles.class);

	private final Device device;

	private final Map<PooledStream, Attached[]> byStream = new ConcurrentHashMap<>();

	private final Map<StreamLibrary<?>, Counters> counters = new ConcurrentHashMap<>();

	LibraryHandles(Device device) {
		this.device = device;
	}

	/**
	 * Calls {@code library} on a session's stream (borrowed by {@code stream} if need
	 * be): opens its handle there the first time, has {@code call} enqueue the work, then
	 * counts the call and reports it to the device's listener.
	 */
	<H> void call(OffloadSession session, Supplier<PooledStream> stream, StreamLibrary<H> library, String operation,
			StreamLibrary.Call<H> call) {
		OffloadListener listener = this.device.sessions().listener;
		long start = (listener != OffloadListener.NONE) ? System.nanoTime() : 0;
		Throwable failed = null;
		try {
			PooledStream lent = stream.get();
			LibraryStream view = new LibraryStream(session, lent.backend);
			H handle;
			try {
				handle = handle(library, lent, view);
			}
			catch (BackendException ex) {
				this.device.failIfSticky(ex);
				throw ex;
			}
			// Checks of the call's operands throw before anything is enqueued; the work
			// itself goes through LibraryStream.call, as the session's own operations.
			call.enqueue(handle, view);
		}
		catch (RuntimeException | Error ex) {
			failed = ex;
			throw ex;
		}
		finally {
			called(library, failed != null);
			if (start != 0) {
				listener.libraryCalled(session, library.name(), operation, System.nanoTime() - start, failed);
			}
		}
	}

	/**
	 * Returns the library's handle on a stream, opening it the first time.
	 */
	<H> H handle(StreamLibrary<H> library, PooledStream stream, LibraryStream view) {
		Attached[] attached = this.byStream.get(stream);
		if (attached != null) {
			for (Attached each : attached) {
				if (each.library == library) {
					@SuppressWarnings("unchecked")
					H handle = (H) each.handle;
					return handle;
				}
			}
		}
		Counters counted = counters(library);
		view.beginOpening();
		H handle;
		try {
			handle = library.open(view);
		}
		catch (RuntimeException | Error ex) {
			view.endOpening().forEach(this::release);
			throw ex;
		}
		List<LibraryStream.Workspace> workspace = view.endOpening();
		counted.handlesCreated.increment();
		for (LibraryStream.Workspace each : workspace) {
			counted.workspaceAllocations.increment();
			counted.workspaceBytes.add(each.charged());
		}
		Attached opened = new Attached(library, handle, workspace);
		this.byStream.put(stream, (attached != null) ? append(attached, opened) : new Attached[] { opened });
		return handle;
	}

	private static Attached[] append(Attached[] attached, Attached opened) {
		Attached[] grown = Arrays.copyOf(attached, attached.length + 1);
		grown[attached.length] = opened;
		return grown;
	}

	/**
	 * Closes the handles of a stream the pool destroys, then gives their workspace back.
	 */
	void close(PooledStream stream) {
		Attached[] attached = this.byStream.remove(stream);
		if (attached == null) {
			return;
		}
		for (Attached each : attached) {
			Counters counted = counters(each.library);
			try {
				// A native library's handle is destroyed with the device's context
				// current.
				stream.backend.makeCurrent();
				closeHandle(each);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not close the {} handle of {} on device {}: {}", each.library.name(), stream,
						this.device.id(), ex.getMessage());
			}
			finally {
				counted.handlesClosed.increment();
				for (LibraryStream.Workspace workspace : each.workspace) {
					counted.workspaceBytes.add(-workspace.charged());
					release(workspace);
				}
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static <H> void closeHandle(Attached attached) {
		((StreamLibrary<H>) attached.library).close((H) attached.handle);
	}

	private void release(LibraryStream.Workspace workspace) {
		try {
			this.device.sessions().releaseMemory(workspace.memory(), false, workspace.charged());
		}
		finally {
			this.device.sessions().memory.releaseBudget(workspace.charged());
		}
	}

	void called(StreamLibrary<?> library, boolean failed) {
		Counters counted = counters(library);
		counted.calls.increment();
		if (failed) {
			counted.failedCalls.increment();
		}
	}

	LibraryStatistics statistics(StreamLibrary<?> library) {
		Counters counted = this.counters.get(library);
		if (counted == null) {
			return new LibraryStatistics(library.name(), this.device.id(), 0, 0, 0, 0, 0, 0);
		}
		return new LibraryStatistics(library.name(), this.device.id(), counted.handlesCreated.sum(),
				counted.handlesClosed.sum(), counted.workspaceAllocations.sum(), counted.workspaceBytes.sum(),
				counted.calls.sum(), counted.failedCalls.sum());
	}

	private Counters counters(StreamLibrary<?> library) {
		return this.counters.computeIfAbsent(library, (key) -> new Counters());
	}

	/** A library's handle on one stream, with the workspace it holds. */
	private record Attached(StreamLibrary<?> library, Object handle, List<LibraryStream.Workspace> workspace) {
	}

	private static final class Counters {

		final LongAdder handlesCreated = new LongAdder();

		final LongAdder handlesClosed = new LongAdder();

		final LongAdder workspaceAllocations = new LongAdder();

		final LongAdder workspaceBytes = new LongAdder();

		final LongAdder calls = new LongAdder();

		final LongAdder failedCalls = new LongAdder();

	}

}
