package dev.offload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.spi.BackendGraph;
import dev.offload.spi.BackendStream;
import dev.offload.spi.NativeMemory;

/**
 * A sequence of copies, fills and launches of fixed shape, captured once and replayed
 * with one call (a CUDA graph; the host backend records the sequence and runs it as one
 * operation). Replaying saves the per-launch driver time that dominates small kernels.
 * <pre>{@code
 * try (OffloadSession session = device.openSession()) {
 *     CapturedFlow flow = CapturedFlow.capture(session, (steps) -> {
 *         steps.copy(input, x);
 *         for (int i = 0; i < 16; i++) {
 *             steps.launch(SCALE, LaunchConfig.forThreads(n, 256), n, 2f, x, x);
 *         }
 *         steps.copy(x, output);
 *     });
 *     flow.replay(session);
 *     session.synchronize();
 * }
 * }</pre> A captured flow reads and writes the very buffers it captured, with the
 * captured sizes, offsets and scalar arguments; those buffers must be ones the
 * application owns ({@link Device#allocate(long)}, {@link Device#allocateHost(long)}),
 * because a flow outlives sessions. A replay is refused, never silently wrong: after a
 * captured buffer was closed, or when the caller names a buffer the flow did not capture.
 * To change the data, write into the captured host buffers before a replay.
 * <p>
 * The flow belongs to its device: {@link #close()} releases it, and the device destroys
 * the flows still open when it shuts down. Replays from several sessions at once are
 * safe; they run one after another.
 */
public final class CapturedFlow implements AutoCloseable {

	private final Device device;

	private final BackendGraph graph;

	private final Set<Buffer> buffers;

	private final int steps;

	private volatile boolean closed;

	private CapturedFlow(Device device, BackendGraph graph, Set<Buffer> buffers, int steps) {
		this.device = device;
		this.graph = graph;
		this.buffers = buffers;
		this.steps = steps;
	}

	/**
	 * Captures the steps that {@code recipe} gives, on the session's stream, without
	 * running them. Each step is checked as the session would check it, before anything
	 * is captured.
	 * @param session the session whose stream captures (it is borrowed if needed)
	 * @param recipe gives the steps, in order
	 * @return the flow, to replay and close
	 * @throws IllegalArgumentException if a step does not fit (a range outside a buffer,
	 * arguments that do not fit the kernel, a buffer of a session or of another device)
	 * @throws UnsupportedOperationException if the backend cannot capture
	 */
	public static CapturedFlow capture(OffloadSession session, Consumer<Steps> recipe) {
		Objects.requireNonNull(session, "session must not be null");
		Objects.requireNonNull(recipe, "recipe must not be null");
		Steps steps = new Steps(session.device());
		recipe.accept(steps);
		if (steps.operations.isEmpty()) {
			throw new IllegalArgumentException("A captured flow needs at least one step; the recipe gave none");
		}
		List<Consumer<BackendStream>> operations = List.copyOf(steps.operations);
		BackendGraph graph = session.onStream("capture", (stream) -> stream.capture((capturing) -> {
			for (Consumer<BackendStream> operation : operations) {
				operation.accept(capturing);
			}
		}));
		CapturedFlow flow = new CapturedFlow(session.device(), graph, Collections.unmodifiableSet(steps.buffers),
				operations.size());
		session.device().adopt(flow);
		return flow;
	}

	/**
	 * Enqueues a replay on {@code session}'s stream.
	 * @param session a session on the flow's device
	 * @throws IllegalStateException if the flow is closed or a captured buffer was closed
	 * @throws IllegalArgumentException if the session is on another device
	 */
	public void replay(OffloadSession session) {
		replay(session, new Buffer[0]);
	}

	/**
	 * Enqueues a replay on {@code session}'s stream after checking that the buffers the
	 * caller means to use are the ones captured: a graph cannot be pointed at other
	 * buffers.
	 * @param session a session on the flow's device
	 * @param expected the buffers the caller expects the replay to read and write
	 * @throws IllegalStateException if the flow is closed or a captured buffer was closed
	 * @throws IllegalArgumentException if the session is on another device, or a buffer
	 * in {@code expected} was not captured
	 */
	public void replay(OffloadSession session, Buffer... expected) {
		Objects.requireNonNull(session, "session must not be null");
		if (this.closed) {
			throw new IllegalStateException("The captured flow of " + this.steps + " steps on device "
					+ this.device.id() + " is closed; capture it again");
		}
		if (session.device() != this.device) {
			throw new IllegalArgumentException("The flow was captured on device " + this.device.id()
					+ " and cannot be replayed by a session on device " + session.device().id());
		}
		for (Buffer buffer : expected) {
			if (!this.buffers.contains(buffer)) {
				throw new IllegalArgumentException(buffer + " was not captured by this flow, which replays "
						+ this.buffers + " only: a replay runs the captured buffers and sizes; capture another flow "
						+ "for this buffer");
			}
		}
		for (Buffer buffer : this.buffers) {
			if (buffer.isClosed()) {
				throw new IllegalStateException(buffer + " captured by this flow was closed; a replay would use "
						+ "freed memory: capture the flow again with the buffers in use now");
			}
		}
		session.onStream("replay", (stream) -> {
			stream.launch(this.graph);
			return null;
		});
	}

	/**
	 * Returns the device the flow was captured on.
	 * @return the device
	 */
	public Device device() {
		return this.device;
	}

	/**
	 * Returns the number of steps captured.
	 * @return the copies, fills and launches
	 */
	public int steps() {
		return this.steps;
	}

	/**
	 * Returns the buffers the flow reads and writes.
	 * @return the buffers, in no particular order
	 */
	public Set<Buffer> buffers() {
		return this.buffers;
	}

	/**
	 * Tells whether the flow was closed (by {@link #close()} or the device's shutdown).
	 * @return {@code true} if it can no longer be replayed
	 */
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Releases the graph; replays already enqueued complete first on CUDA. Closing twice
	 * is harmless.
	 */
	@Override
	public void close() {
		if (!this.closed) {
			this.device.disown(this);
			destroy();
		}
	}

	void destroy() {
		this.closed = true;
		this.graph.destroy();
	}

	@Override
	public String toString() {
		return "CapturedFlow[" + this.steps + " steps, " + this.buffers.size() + " buffers on device "
				+ this.device.id() + (this.closed ? ", closed" : "") + "]";
	}

	/**
	 * The steps of a flow being captured, checked as a session checks them; the buffers
	 * must be owned by the application.
	 */
	public static final class Steps {

		private final Device device;

		private final List<Consumer<BackendStream>> operations = new ArrayList<>();

		private final Set<Buffer> buffers = Collections.newSetFromMap(new IdentityHashMap<>());

		private Steps(Device device) {
			this.device = device;
		}

		/**
		 * Adds a copy of all of {@code src} to the start of {@code dst}.
		 * @param src the source (host or device)
		 * @param dst the destination, at least as large
		 * @return these steps
		 */
		public Steps copy(Buffer src, Buffer dst) {
			Objects.requireNonNull(src, "copy needs a source");
			return copy(src, 0, dst, 0, src.size());
		}

		/**
		 * Adds a copy of {@code bytes} bytes between two buffers of the flow's device.
		 * @param src the source
		 * @param srcOffset the offset in the source
		 * @param dst the destination
		 * @param dstOffset the offset in the destination
		 * @param bytes the number of bytes
		 * @return these steps
		 * @throws IllegalArgumentException if a range is outside its buffer
		 */
		public Steps copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
			var from = captured(src, "the copy's source");
			var to = captured(dst, "the copy's destination");
			src.checkRange(srcOffset, bytes, "the copy's source");
			dst.checkRange(dstOffset, bytes, "the copy's destination");
			this.operations.add((stream) -> stream.copy(from, srcOffset, to, dstOffset, bytes));
			return this;
		}

		/**
		 * Adds setting every byte of {@code dst} to {@code value}.
		 * @param dst the buffer
		 * @param value the byte value
		 * @return these steps
		 */
		public Steps fill(Buffer dst, byte value) {
			var to = captured(dst, "the fill");
			long bytes = dst.size();
			this.operations.add((stream) -> stream.fill(to, 0, bytes, value));
			return this;
		}

		/**
		 * Adds a kernel launch, loading the kernel's module on the device if needed.
		 * @param kernel the kernel
		 * @param config the grid, block and shared memory sizes
		 * @param args one argument per parameter, as for
		 * {@link OffloadSession#launch(Kernel, LaunchConfig, Object...)}
		 * @return these steps
		 * @throws IllegalArgumentException if an argument does not fit
		 */
		public Steps launch(KernelRef kernel, LaunchConfig config, Object... args) {
			Objects.requireNonNull(kernel, "launch needs a kernel");
			Objects.requireNonNull(config, "launch needs a launch configuration");
			Kernel loaded = this.device.kernel(kernel);
			for (Object arg : args) {
				if (arg instanceof Buffer buffer) {
					captured(buffer, "an argument of kernel '" + kernel.name() + "'");
				}
			}
			Object[] converted = loaded.toBackendArguments(args);
			this.operations
				.add((stream) -> stream.launch(loaded.backendKernel(), config.gridX(), config.gridY(), config.gridZ(),
						config.blockX(), config.blockY(), config.blockZ(), config.sharedMemoryBytes(), converted));
			return this;
		}

		private NativeMemory captured(Buffer buffer, String use) {
			if (buffer == null) {
				throw new IllegalArgumentException(use + " needs a buffer, was null");
			}
			var memory = buffer.memoryFor(this.device, use);
			if (buffer.ownedBySession()) {
				throw new IllegalArgumentException("The buffer for " + use + " belongs to a session, and a captured "
						+ "flow outlives sessions: allocate it with Device.allocate or Device.allocateHost");
			}
			this.buffers.add(buffer);
			return memory;
		}

	}

}
