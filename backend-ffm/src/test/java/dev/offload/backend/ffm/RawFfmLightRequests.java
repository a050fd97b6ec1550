package dev.offload.backend.ffm;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.offload.Device;
import dev.offload.DeviceBuffer;
import dev.offload.DeviceRegistry;
import dev.offload.HostBuffer;
import dev.offload.OffloadSession;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.LaunchConfig;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.spi.BackendAvailability;
import dev.offload.template.OffloadTemplate;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Light requests on many threads through raw FFM downcalls against Offload's fluent call
 * on the FFM backend, in one JVM and alternating within each round (every mode, then
 * every mode in the reverse order), so that the host's drift falls on all alike. A raw
 * request is what {@code light_request_floor.c} does, through this binding's own
 * downcalls ({@link Cu}) and nothing of Offload: 4 B from page-locked memory in, the
 * 4-parameter {@code scale} kernel, 4 B out, {@code cuStreamSynchronize}, each thread
 * with its own stream and buffers made once; with {@code cuMemcpyAsync}, the copy
 * Offload's binding makes, and with the typed copies C's floor makes
 * ({@code cuMemcpyHtoDAsync}, {@code cuMemcpyDtoHAsync}), which tells the cost of the
 * copy's kind apart from Offload's own. Further raw modes name the memory Offload
 * allocates (page-locked {@code PORTABLE|DEVICEMAP} host memory, blocks of the
 * stream-ordered pool, slices of one shared staging chunk) or lend each request a stream
 * from a shared deque, one difference at a time. A fluent request is
 * {@code template.kernel(scale).threads(1).arg(1).arg(2f).in(x).outFloats(1).run()}; the
 * session modes make the same request through a session's calls, with a session per
 * request (counting how often a thread's stream is not the one it had before) or one kept
 * per thread, which tells the pool's lending apart from the rest of Offload's work. The
 * last modes make raw FFM's calls on a kept session's stream and buffers, all of them or
 * all but one step made through the session (its copies, its launch or its synchronize),
 * which tells the cost of each of Offload's calls apart. Raw FFM's request with the
 * calling thread busy between its calls (spinning for a while, writing a few KiB a cache
 * line at a time, or allocating what a lambda and its captures take) tells whether work
 * of the caller's own between the driver's calls costs the driver's throughput; with the
 * same allocations made before its first call instead, whether where they fall matters.
 * <p>
 * A benchmark, not a test: run on a GPU machine with the test class path and the
 * benchmarks' classes (for {@code scale.ptx}), e.g.
 * {@code java --enable-native-access=ALL-UNNAMED -cp ... dev.offload.backend.ffm.RawFfmLightRequests 16 20000 5}
 * ({@code THREADS CALLS_PER_THREAD ROUNDS}; {@code -Dmodes=fluent,lent bundles} runs raw
 * FFM and the modes named). Prints each round's requests per second and each mode's
 * median ratio to raw FFM over the rounds after the first; exits 2 without a CUDA device.
 */
public final class RawFfmLightRequests {

	/** The device the benchmark runs on. */
	private static final int DEVICE = 0;

	private static final String PTX = "dev/offload/benchmarks/cuda/scale.ptx";

	private RawFfmLightRequests() {
	}

	public static void main(String[] args) throws Exception {
		int threads = (args.length > 0) ? Integer.parseInt(args[0]) : 16;
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : 20_000;
		int rounds = (args.length > 2) ? Integer.parseInt(args[2]) : 5;
		BackendAvailability availability = FfmBackend.probe();
		if (!availability.available()) {
			System.out.println("No CUDA device through FFM: " + availability.message());
			System.exit(2);
		}
		try (DeviceRegistry registry = DeviceRegistry.builder(FfmBackend.create()).deviceIds(List.of(DEVICE)).build();
				Arena arena = Arena.ofShared()) {
			OffloadTemplate template = new OffloadTemplate(registry);
			KernelRef scale = KernelRef.of(ModuleDefinition.builder("scale").imageResource(PTX).build(), "scale");
			RawKernel kernel = rawKernel(arena);
			System.out.printf(Locale.ROOT,
					"Light requests, raw FFM downcalls against the fluent call; %s; Java %s;"
							+ " %d threads, %d calls each a round%n%n",
					registry.device(DEVICE).name(), Runtime.version(), threads, calls);
			Memory shared = new Memory(threads);
			Map<String, Supplier<Scaler>> all = new LinkedHashMap<>();
			all.put("raw FFM", () -> new RawScaler(kernel, false, MemoryKind.PLAIN, shared));
			all.put("typed copies", () -> new RawScaler(kernel, true, MemoryKind.PLAIN, shared));
			all.put("mapped host", () -> new RawScaler(kernel, false, MemoryKind.MAPPED_HOST, shared));
			all.put("pool device", () -> new RawScaler(kernel, false, MemoryKind.POOL_DEVICE, shared));
			all.put("Offload's kinds", () -> new RawScaler(kernel, false, MemoryKind.OFFLOAD, shared));
			all.put("shared chunk", () -> new RawScaler(kernel, false, MemoryKind.OFFLOAD_SHARED_CHUNK, shared));
			for (int pause : new int[] { 100, 300, 1000 }) {
				all.put("raw FFM paused " + pause + " ns",
						() -> new PausedScaler(new RawScaler(kernel, false, MemoryKind.PLAIN, shared), pause, 0,
								Allocating.NOTHING));
			}
			for (int kib : new int[] { 4, 16, 64 }) {
				all.put("raw FFM touching " + kib + " KiB",
						() -> new PausedScaler(new RawScaler(kernel, false, MemoryKind.PLAIN, shared), 0, kib,
								Allocating.NOTHING));
			}
			all.put("raw FFM allocating", () -> new PausedScaler(new RawScaler(kernel, false, MemoryKind.PLAIN, shared),
					0, 0, Allocating.BETWEEN_CALLS));
			all.put("raw FFM allocating first",
					() -> new PausedScaler(new RawScaler(kernel, false, MemoryKind.PLAIN, shared), 0, 0,
							Allocating.BEFORE_CALLS));
			all.put("lent bundles", () -> LentScaler.of(kernel, shared.bundles(kernel, threads)));
			all.put("one-thread-made", () -> KeptScaler.of(kernel, shared.bundles(kernel, threads)));
			all.put("fluent", () -> new FluentScaler(template, scale));
			Device device = registry.device(DEVICE);
			LongAdder streamChanges = new LongAdder();
			LongAdder sessions = new LongAdder();
			all.put("session per request",
					() -> new SessionScaler(device, scale, Kept.NOTHING, streamChanges, sessions));
			all.put("session kept", () -> new SessionScaler(device, scale, Kept.SESSION, streamChanges, sessions));
			all.put("session and buffers kept",
					() -> new SessionScaler(device, scale, Kept.SESSION_AND_BUFFERS, streamChanges, sessions));
			all.put("raw calls on a session's objects", () -> new SessionObjectsScaler(device, kernel, true, true));
			all.put("raw calls on a session's stream", () -> new SessionObjectsScaler(device, kernel, true, false));
			all.put("raw calls on a session's memory", () -> new SessionObjectsScaler(device, kernel, false, true));
			for (Step step : Step.values()) {
				all.put("session's " + step.label + " only", () -> new SessionStepScaler(device, scale, kernel, step));
			}
			// -Dmodes=a,b runs raw FFM and those; without it, all of them.
			List<String> wanted = List.of(System.getProperty("modes", "").split(","));
			List<String> names = all.keySet()
				.stream()
				.filter((name) -> name.equals("raw FFM") || wanted.equals(List.of("")) || wanted.contains(name))
				.toList();
			List<Supplier<Scaler>> modes = names.stream().map(all::get).toList();
			StringBuilder header = new StringBuilder("| round |");
			StringBuilder rule = new StringBuilder("| ---: |");
			for (String name : names) {
				header.append(' ').append(name).append(" /s |");
				rule.append(" ---: |");
			}
			for (int i = 1; i < names.size(); i++) {
				header.append(' ').append(names.get(i)).append(" / raw |");
				rule.append(" ---: |");
			}
			System.out.println(header);
			System.out.println(rule);
			double[][] ratios = new double[names.size()][rounds];
			for (int round = 1; round <= rounds; round++) {
				// Seconds per request of each mode: a round runs the modes in one order
				// and then in the reverse one, half the calls each time, so that a drift
				// of the host within the round falls on every mode alike. Each round
				// starts with another mode, so that none always runs first.
				double[] secondsPerRequest = new double[modes.size()];
				int count = modes.size();
				for (int step = 0; step < 2 * count; step++) {
					int position = (step < count) ? step : 2 * count - 1 - step;
					int mode = (round - 1 + position) % count;
					secondsPerRequest[mode] += 1 / run(threads, calls / 2, modes.get(mode));
				}
				double[] rate = new double[count];
				for (int mode = 0; mode < count; mode++) {
					rate[mode] = 2 / secondsPerRequest[mode];
				}
				StringBuilder line = new StringBuilder("| " + round + " |");
				for (double r : rate) {
					line.append(String.format(Locale.ROOT, " %.0f |", r));
				}
				for (int i = 1; i < names.size(); i++) {
					ratios[i][round - 1] = rate[i] / rate[0];
					line.append(String.format(Locale.ROOT, " %.2f |", ratios[i][round - 1]));
				}
				System.out.println(line);
			}
			System.out.println();
			for (int i = 1; i < names.size(); i++) {
				System.out.printf(Locale.ROOT, "median of rounds %s, %s / raw FFM: %.2f%n", (rounds > 1) ? "2+" : "1",
						names.get(i), warmMedian(ratios[i]));
			}
			System.out.printf(Locale.ROOT, "fluent / raw FFM target: >= 0.95%n");
			if (sessions.sum() > 0) {
				System.out.printf(Locale.ROOT, "session per request: %d of %d sessions on another stream than the"
						+ " thread's previous one%n", streamChanges.sum(), sessions.sum());
			}
			shared.close();
		}
	}

	/** The median of the rounds after the first (the only one if there is one). */
	private static double warmMedian(double[] ratios) {
		double[] warm = Arrays.copyOfRange(ratios, (ratios.length > 1) ? 1 : 0, ratios.length);
		Arrays.sort(warm);
		return warm[warm.length / 2];
	}

	/** Loads the PTX in the primary context by hand. */
	private static RawKernel rawKernel(Arena arena) throws IOException {
		MemorySegment out = arena.allocate(JAVA_LONG);
		CuErrors.check("cuDevicePrimaryCtxRetain", Cu.cuDevicePrimaryCtxRetain(out.address(), DEVICE), DEVICE);
		long context = out.get(JAVA_LONG, 0);
		CuErrors.check("cuCtxSetCurrent", Cu.cuCtxSetCurrent(context), DEVICE);
		byte[] ptx;
		try (InputStream in = RawFfmLightRequests.class.getClassLoader().getResourceAsStream(PTX)) {
			if (in == null) {
				throw new IllegalStateException(PTX + " is not on the class path (add the benchmarks' classes)");
			}
			ptx = in.readAllBytes();
		}
		MemorySegment image = arena.allocate(ptx.length + 1L);
		MemorySegment.copy(ptx, 0, image, JAVA_BYTE, 0, ptx.length);
		CuErrors.check("cuModuleLoadData", Cu.cuModuleLoadData(out.address(), image.address()), DEVICE);
		long module = out.get(JAVA_LONG, 0);
		CuErrors.check("cuModuleGetFunction",
				Cu.cuModuleGetFunction(out.address(), module, arena.allocateFrom("scale").address()), DEVICE);
		return new RawKernel(context, out.get(JAVA_LONG, 0));
	}

	/** Requests per second of {@code threads} threads, each making its scaler once. */
	private static double run(int threads, int calls, Supplier<Scaler> scalers) throws InterruptedException {
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch start = new CountDownLatch(1);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				try (Scaler scaler = scalers.get()) {
					for (int i = 0; i < calls / 4; i++) {
						scaler.scale(i);
					}
					ready.countDown();
					start.await();
					for (int i = 0; i < calls; i++) {
						if (scaler.scale(i) != 2f * i) {
							throw new IllegalStateException("wrong result for " + i);
						}
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
					ready.countDown();
				}
			});
			worker.start();
			workers.add(worker);
		}
		ready.await();
		long begin = System.nanoTime();
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		long elapsed = System.nanoTime() - begin;
		if (failure.get() != null) {
			throw new IllegalStateException("a request failed", failure.get());
		}
		return (double) threads * calls / (elapsed / 1e9);
	}

	/** The primary context and the kernel's function in it, as raw handles. */
	private record RawKernel(long context, long function) {

	}

	/** One thread's requests: {@code 2 * x} for one float. */
	private interface Scaler extends AutoCloseable {

		float scale(int x);

		@Override
		void close();

	}

	/** Offload's fluent call. */
	private record FluentScaler(OffloadTemplate template, KernelRef kernel) implements Scaler {

		@Override
		public float scale(int x) {
			float[] in = { x };
			return this.template.kernel(this.kernel).threads(1).arg(1).arg(2f).in(in).outFloats(1).run().floats(0)[0];
		}

		@Override
		public void close() {
		}

	}

	/** What a session mode keeps from one request to the next. */
	private enum Kept {

		NOTHING, SESSION, SESSION_AND_BUFFERS

	}

	/**
	 * The session idiom: a session per request (counting the requests whose stream is not
	 * the thread's previous one), or one session kept per thread, with the buffers the
	 * fluent call allocates (page-locked staging, device blocks for in and out) allocated
	 * and closed per request, or allocated once with the session: that one is Offload's
	 * enqueues and synchronize alone.
	 */
	private static final class SessionScaler implements Scaler {

		private static final LaunchConfig ONE = LaunchConfig.of(1, 1);

		private final Device device;

		private final KernelRef kernel;

		private final @Nullable OffloadSession kept;

		private final @Nullable Buffers keptBuffers;

		private final LongAdder streamChanges;

		private final LongAdder sessions;

		private final float[] value = new float[1];

		private int previousStream = -1;

		SessionScaler(Device device, KernelRef kernel, Kept keep, LongAdder streamChanges, LongAdder sessions) {
			this.device = device;
			this.kernel = kernel;
			this.kept = (keep != Kept.NOTHING) ? device.openSession() : null;
			this.keptBuffers = (this.kept != null && keep == Kept.SESSION_AND_BUFFERS) ? new Buffers(this.kept) : null;
			this.streamChanges = streamChanges;
			this.sessions = sessions;
		}

		@Override
		public float scale(int x) {
			OffloadSession session = (this.kept != null) ? this.kept : this.device.openSession();
			try {
				if (this.keptBuffers != null) {
					return request(session, this.keptBuffers, x);
				}
				try (Buffers buffers = new Buffers(session)) {
					return request(session, buffers, x);
				}
			}
			finally {
				if (this.kept == null) {
					countStream(session);
					session.close();
				}
			}
		}

		private float request(OffloadSession session, Buffers buffers, int x) {
			this.value[0] = x;
			buffers.host.putFloats(0, this.value);
			session.copy(buffers.host, 0, buffers.in, 0, Float.BYTES);
			session.launch(this.kernel, ONE, 1, 2f, buffers.in, buffers.out);
			session.copy(buffers.out, 0, buffers.host, Float.BYTES, Float.BYTES);
			session.synchronize();
			return buffers.host.getFloats(1, this.value)[0];
		}

		private void countStream(OffloadSession session) {
			int stream = session.streamId();
			this.sessions.increment();
			if (this.previousStream >= 0 && stream != this.previousStream) {
				this.streamChanges.increment();
			}
			this.previousStream = stream;
		}

		@Override
		public void close() {
			if (this.kept != null) {
				this.kept.close();
			}
		}

		/** A request's buffers: page-locked staging, device blocks for in and out. */
		private static final class Buffers implements AutoCloseable {

			final HostBuffer host;

			final DeviceBuffer in;

			final DeviceBuffer out;

			Buffers(OffloadSession session) {
				this.host = session.allocateHost(2 * Float.BYTES);
				this.in = session.allocate(Float.BYTES);
				this.out = session.allocate(Float.BYTES);
			}

			@Override
			public void close() {
				this.host.close();
				this.in.close();
				this.out.close();
			}

		}

	}

	/**
	 * Raw FFM's calls on what a session kept per thread lends: its stream (unwrapped),
	 * its page-locked and device buffers (their addresses); the kernel's parameters in a
	 * cache-line block of the thread's own. Tells the driver's cost of Offload's streams
	 * and memory from the cost of Offload's calls.
	 */
	private static final class SessionObjectsScaler implements Scaler {

		private final Arena arena = Arena.ofShared();

		private final OffloadSession session;

		private final long function;

		private final long stream;

		private final MemorySegment hostIn;

		private final MemorySegment hostOut;

		private final long deviceIn;

		private final long deviceOut;

		private final long parameters;

		private final long ownStream;

		private final long ownHost;

		private final long ownDevice;

		private final @Nullable HostBuffer host;

		private final @Nullable DeviceBuffer in;

		private final @Nullable DeviceBuffer out;

		SessionObjectsScaler(Device device, RawKernel kernel, boolean sessionStream, boolean sessionMemory) {
			this.function = kernel.function();
			this.session = device.openSession();
			CuErrors.check("cuCtxSetCurrent", Cu.cuCtxSetCurrent(kernel.context()), DEVICE);
			MemorySegment out = this.arena.allocate(JAVA_LONG);
			if (sessionStream) {
				this.stream = this.session.unwrap(Long.class);
				this.ownStream = 0;
			}
			else {
				CuErrors.check("cuStreamCreateWithPriority",
						Cu.cuStreamCreateWithPriority(out.address(), FfmDevice.CU_STREAM_NON_BLOCKING, 0), DEVICE);
				this.stream = out.get(JAVA_LONG, 0);
				this.ownStream = this.stream;
			}
			if (sessionMemory) {
				this.host = this.session.allocateHost(2 * Float.BYTES);
				MemorySegment hostBlock = MemorySegment.ofAddress((Long) this.host.nativeHandle()).reinterpret(8);
				this.hostIn = hostBlock.asSlice(0, 4);
				this.hostOut = hostBlock.asSlice(4, 4);
				this.in = this.session.allocate(Float.BYTES);
				this.out = this.session.allocate(Float.BYTES);
				this.deviceIn = (Long) this.in.nativeHandle();
				this.deviceOut = (Long) this.out.nativeHandle();
				this.ownHost = 0;
				this.ownDevice = 0;
				// The blocks may come in the session's stream order: ready before any
				// use.
				this.session.synchronize();
			}
			else {
				this.host = null;
				this.in = null;
				this.out = null;
				CuErrors.check("cuMemHostAlloc", Cu.cuMemHostAlloc(out.address(), 8, 0), DEVICE);
				this.ownHost = out.get(JAVA_LONG, 0);
				MemorySegment host = MemorySegment.ofAddress(this.ownHost).reinterpret(8);
				this.hostIn = host.asSlice(0, 4);
				this.hostOut = host.asSlice(4, 4);
				CuErrors.check("cuMemAlloc", Cu.cuMemAlloc(out.address(), 8), DEVICE);
				this.ownDevice = out.get(JAVA_LONG, 0);
				this.deviceIn = this.ownDevice;
				this.deviceOut = this.ownDevice + 4;
			}
			MemorySegment block = this.arena.allocate(128, 128);
			block.set(JAVA_INT, 64, 1);
			block.set(JAVA_FLOAT, 72, 2f);
			block.set(JAVA_LONG, 80, this.deviceIn);
			block.set(JAVA_LONG, 88, this.deviceOut);
			for (int i = 0; i < 4; i++) {
				block.setAtIndex(ADDRESS, i, block.asSlice(64 + 8L * i));
			}
			this.parameters = block.address();
		}

		@Override
		public float scale(int x) {
			return RawScaler.request(x, this.function, this.stream, this.parameters, this.hostIn, this.hostOut,
					this.deviceIn, this.deviceOut, false);
		}

		@Override
		public void close() {
			this.session.close();
			if (this.ownStream != 0) {
				Cu.cuStreamDestroy(this.ownStream);
			}
			if (this.ownHost != 0) {
				Cu.cuMemFreeHost(this.ownHost);
				Cu.cuMemFree(this.ownDevice);
			}
			this.arena.close();
		}

	}

	/** A step of a request that {@link SessionStepScaler} makes through the session. */
	private enum Step {

		COPIES("copies"), LAUNCH("launch"), SYNCHRONIZE("synchronize");

		final String label;

		Step(String label) {
			this.label = label;
		}

	}

	/**
	 * A kept session and its buffers, one step of each request through the session's
	 * calls and the others as raw downcalls on the same stream and memory: tells which of
	 * Offload's calls costs what raw FFM does not.
	 */
	private static final class SessionStepScaler implements Scaler {

		private static final LaunchConfig ONE = LaunchConfig.of(1, 1);

		private final SessionObjectsScaler raw;

		private final OffloadSession session;

		private final HostBuffer host;

		private final DeviceBuffer in;

		private final DeviceBuffer out;

		private final KernelRef kernel;

		private final Step step;

		private final float[] value = new float[1];

		SessionStepScaler(Device device, KernelRef kernel, RawKernel rawKernel, Step step) {
			this.raw = new SessionObjectsScaler(device, rawKernel, true, true);
			this.session = this.raw.session;
			this.host = Objects.requireNonNull(this.raw.host);
			this.in = Objects.requireNonNull(this.raw.in);
			this.out = Objects.requireNonNull(this.raw.out);
			this.kernel = kernel;
			this.step = step;
		}

		@Override
		public float scale(int x) {
			SessionObjectsScaler r = this.raw;
			if (this.step == Step.COPIES) {
				this.value[0] = x;
				this.host.putFloats(0, this.value);
				this.session.copy(this.host, 0, this.in, 0, Float.BYTES);
			}
			else {
				RawScaler.copyIn(x, r.hostIn, r.deviceIn, r.stream, false);
			}
			if (this.step == Step.LAUNCH) {
				this.session.launch(this.kernel, ONE, 1, 2f, this.in, this.out);
			}
			else {
				RawScaler.launch(r.function, r.stream, r.parameters);
			}
			if (this.step == Step.COPIES) {
				this.session.copy(this.out, 0, this.host, Float.BYTES, Float.BYTES);
			}
			else {
				RawScaler.copyOut(r.hostOut, r.deviceOut, r.stream, false);
			}
			if (this.step == Step.SYNCHRONIZE) {
				this.session.synchronize();
			}
			else {
				RawScaler.synchronize(r.stream);
			}
			return (this.step == Step.COPIES) ? this.host.getFloats(1, this.value)[0] : r.hostOut.get(JAVA_FLOAT, 0);
		}

		@Override
		public void close() {
			this.raw.close();
		}

	}

	/**
	 * Raw FFM's request with the calling thread busy for a while between its calls, as a
	 * library's own work between them keeps it: how much that costs the driver's
	 * throughput, apart from what the work is.
	 */
	/** Where a raw request allocates, if at all. */
	private enum Allocating {

		NOTHING, BETWEEN_CALLS, BEFORE_CALLS

	}

	private static final class PausedScaler implements Scaler {

		private final RawScaler raw;

		private final long pauseNanos;

		/** Written a cache line at a time between the calls. */
		private final long[] touched;

		private final Allocating allocating;

		/**
		 * Keeps what the gaps made from being optimized away: a plain field, since a
		 * volatile store would add a fence to each gap and measure that instead.
		 */
		private @Nullable Object sink;

		PausedScaler(RawScaler raw, long pauseNanos, int touchKib, Allocating allocating) {
			this.raw = raw;
			this.pauseNanos = pauseNanos;
			this.touched = new long[touchKib * 1024 / Long.BYTES];
			this.allocating = allocating;
		}

		@Override
		public float scale(int x) {
			RawScaler r = this.raw;
			if (this.allocating == Allocating.BEFORE_CALLS) {
				// What the three gaps allocate in the other mode, all before the calls.
				allocate();
				allocate();
				allocate();
			}
			RawScaler.copyIn(x, r.hostIn, r.deviceIn, r.stream, false);
			pause();
			RawScaler.launch(r.function, r.stream, r.parameters);
			pause();
			RawScaler.copyOut(r.hostOut, r.deviceOut, r.stream, false);
			pause();
			RawScaler.synchronize(r.stream);
			return r.hostOut.get(JAVA_FLOAT, 0);
		}

		private void pause() {
			if (this.pauseNanos > 0) {
				long until = System.nanoTime() + this.pauseNanos;
				while (System.nanoTime() < until) {
					Thread.onSpinWait();
				}
			}
			long[] lines = this.touched;
			for (int i = 0; i < lines.length; i += 8) {
				lines[i]++;
			}
			if (this.allocating == Allocating.BETWEEN_CALLS) {
				allocate();
			}
		}

		/** About what a session's copy allocated: a lambda and its captures. */
		private void allocate() {
			this.sink = new Object[] { new long[2], new Object() };
		}

		@Override
		public void close() {
			this.raw.close();
		}

	}

	/**
	 * The same request through the binding's downcalls, its stream and buffers made once.
	 */
	private static final class RawScaler implements Scaler {

		private final Arena arena = Arena.ofShared();

		private final long function;

		private final long stream;

		private final MemorySegment hostIn;

		private final MemorySegment hostOut;

		private final long deviceIn;

		private final long deviceOut;

		private final long parameters;

		private final long hostBlock;

		/** Whether the copies name their direction, as C's floor's do. */
		private final boolean typedCopies;

		/** The kinds of memory the request names. */
		private final MemoryKind kind;

		RawScaler(RawKernel kernel, boolean typedCopies, MemoryKind kind, Memory shared) {
			this.typedCopies = typedCopies;
			this.kind = kind;
			this.function = kernel.function();
			CuErrors.check("cuCtxSetCurrent", Cu.cuCtxSetCurrent(kernel.context()), DEVICE);
			MemorySegment out = this.arena.allocate(JAVA_LONG);
			CuErrors.check("cuStreamCreateWithPriority",
					Cu.cuStreamCreateWithPriority(out.address(), FfmDevice.CU_STREAM_NON_BLOCKING, 0), DEVICE);
			this.stream = out.get(JAVA_LONG, 0);
			if (kind == MemoryKind.OFFLOAD_SHARED_CHUNK) {
				// Two 512 B slices of one 4 MiB chunk all threads share, as the staging
				// arena hands them out.
				this.hostBlock = 0;
				MemorySegment slot = shared.nextSlot();
				this.hostIn = slot.asSlice(0, 4);
				this.hostOut = slot.asSlice(512, 4);
			}
			else {
				CuErrors.check("cuMemHostAlloc",
						Cu.cuMemHostAlloc(out.address(), 8, kind.mappedHost ? FfmDevice.HOST_ALLOC_PORTABLE_MAPPED : 0),
						DEVICE);
				this.hostBlock = out.get(JAVA_LONG, 0);
				MemorySegment host = MemorySegment.ofAddress(this.hostBlock).reinterpret(8);
				this.hostIn = host.asSlice(0, 4);
				this.hostOut = host.asSlice(4, 4);
			}
			if (kind.poolDevice) {
				// Two blocks of the smallest size class from the stream-ordered pool, as
				// Offload's buffer cache holds them.
				CuErrors.check("cuMemAllocAsync", Cu.cuMemAllocAsync(out.address(), 512, this.stream), DEVICE);
				this.deviceIn = out.get(JAVA_LONG, 0);
				CuErrors.check("cuMemAllocAsync", Cu.cuMemAllocAsync(out.address(), 512, this.stream), DEVICE);
				this.deviceOut = out.get(JAVA_LONG, 0);
				synchronize(this.stream);
			}
			else {
				CuErrors.check("cuMemAlloc", Cu.cuMemAlloc(out.address(), 8), DEVICE);
				this.deviceIn = out.get(JAVA_LONG, 0);
				this.deviceOut = this.deviceIn + 4;
			}
			// scale(int n, float a, const float* in, float* out): the values, then an
			// array of pointers to them, as cuLaunchKernel takes them.
			MemorySegment values = this.arena.allocate(32, 8);
			values.set(JAVA_INT, 0, 1);
			values.set(JAVA_FLOAT, 8, 2f);
			values.set(JAVA_LONG, 16, this.deviceIn);
			values.set(JAVA_LONG, 24, this.deviceOut);
			MemorySegment pointers = this.arena.allocate(ADDRESS, 4);
			for (int i = 0; i < 4; i++) {
				pointers.setAtIndex(ADDRESS, i, values.asSlice(8L * i));
			}
			this.parameters = pointers.address();
		}

		@Override
		public float scale(int x) {
			return request(x, this.function, this.stream, this.parameters, this.hostIn, this.hostOut, this.deviceIn,
					this.deviceOut, this.typedCopies);
		}

		/**
		 * One request through the driver's calls: {@code x} in, the launch, the result
		 * out, the stream synchronized.
		 * @param typedCopies whether the copies name their direction, as C's floor's do
		 */
		static float request(int x, long function, long stream, long parameters, MemorySegment hostIn,
				MemorySegment hostOut, long deviceIn, long deviceOut, boolean typedCopies) {
			copyIn(x, hostIn, deviceIn, stream, typedCopies);
			launch(function, stream, parameters);
			copyOut(hostOut, deviceOut, stream, typedCopies);
			synchronize(stream);
			return hostOut.get(JAVA_FLOAT, 0);
		}

		/** Writes {@code x} to page-locked memory and enqueues its copy to the device. */
		static void copyIn(int x, MemorySegment hostIn, long deviceIn, long stream, boolean typedCopies) {
			hostIn.set(JAVA_FLOAT, 0, x);
			if (typedCopies) {
				CuErrors.check("cuMemcpyHtoDAsync", Cu.cuMemcpyHtoDAsync(deviceIn, hostIn.address(), 4, stream),
						DEVICE);
			}
			else {
				CuErrors.check("cuMemcpyAsync", Cu.cuMemcpyAsync(deviceIn, hostIn.address(), 4, stream), DEVICE);
			}
		}

		/** Enqueues the one-thread launch with its parameters packed once. */
		static void launch(long function, long stream, long parameters) {
			CuErrors.check("cuLaunchKernel", Cu.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, parameters, 0),
					DEVICE);
		}

		/** Enqueues the copy of the result back to page-locked memory. */
		static void copyOut(MemorySegment hostOut, long deviceOut, long stream, boolean typedCopies) {
			if (typedCopies) {
				CuErrors.check("cuMemcpyDtoHAsync", Cu.cuMemcpyDtoHAsync(hostOut.address(), deviceOut, 4, stream),
						DEVICE);
			}
			else {
				CuErrors.check("cuMemcpyAsync", Cu.cuMemcpyAsync(hostOut.address(), deviceOut, 4, stream), DEVICE);
			}
		}

		/** Waits for the stream. */
		static void synchronize(long stream) {
			CuErrors.check("cuStreamSynchronize", Cu.cuStreamSynchronize(stream), DEVICE);
		}

		@Override
		public void close() {
			if (this.kind.poolDevice) {
				Cu.cuMemFreeAsync(this.deviceIn, this.stream);
				Cu.cuMemFreeAsync(this.deviceOut, this.stream);
				Cu.cuStreamSynchronize(this.stream);
			}
			else {
				Cu.cuMemFree(this.deviceIn);
			}
			Cu.cuStreamDestroy(this.stream);
			if (this.hostBlock != 0) {
				Cu.cuMemFreeHost(this.hostBlock);
			}
			this.arena.close();
		}

	}

	/** The memory a raw request names. */
	private enum MemoryKind {

		/**
		 * Page-locked host memory without flags, device memory from {@code cuMemAlloc}.
		 */
		PLAIN(false, false),

		/** Page-locked {@code PORTABLE|DEVICEMAP} host memory, {@code cuMemAlloc}. */
		MAPPED_HOST(true, false),

		/** Page-locked host memory without flags, the stream-ordered pool's blocks. */
		POOL_DEVICE(false, true),

		/** The kinds Offload's binding allocates. */
		OFFLOAD(true, true),

		/** Offload's kinds, the host side slices of one chunk all threads share. */
		OFFLOAD_SHARED_CHUNK(true, true);

		final boolean mappedHost;

		final boolean poolDevice;

		MemoryKind(boolean mappedHost, boolean poolDevice) {
			this.mappedHost = mappedHost;
			this.poolDevice = poolDevice;
		}

	}

	/** What the threads of a run share: one staging chunk and the lent bundles. */
	private static final class Memory implements AutoCloseable {

		private static final long CHUNK_BYTES = 4L * 1024 * 1024;

		private final MemorySegment chunk;

		private final AtomicInteger slots = new AtomicInteger();

		private final ConcurrentLinkedDeque<RawScaler> bundles = new ConcurrentLinkedDeque<>();

		Memory(int threads) {
			try (Arena arena = Arena.ofConfined()) {
				MemorySegment out = arena.allocate(JAVA_LONG);
				CuErrors.check("cuMemHostAlloc",
						Cu.cuMemHostAlloc(out.address(), CHUNK_BYTES, FfmDevice.HOST_ALLOC_PORTABLE_MAPPED), DEVICE);
				this.chunk = MemorySegment.ofAddress(out.get(JAVA_LONG, 0)).reinterpret(CHUNK_BYTES);
			}
		}

		/** The next thread's 1 KiB of the shared chunk. */
		MemorySegment nextSlot() {
			long slot = this.slots.getAndIncrement() % (CHUNK_BYTES / 1024);
			return this.chunk.asSlice(slot * 1024, 1024);
		}

		/** Bundles of a stream and plain memory, made once, lent request by request. */
		synchronized ConcurrentLinkedDeque<RawScaler> bundles(RawKernel kernel, int count) {
			while (this.bundles.size() < count) {
				this.bundles.add(new RawScaler(kernel, false, MemoryKind.PLAIN, this));
			}
			return this.bundles;
		}

		@Override
		public void close() {
			this.bundles.forEach(RawScaler::close);
			Cu.cuMemFreeHost(this.chunk.address());
		}

	}

	/**
	 * A bundle of the shared deque (all made on one thread, one after another, as a pool
	 * grows), kept by one thread for all its requests.
	 */
	private record KeptScaler(RawScaler bundle, ConcurrentLinkedDeque<RawScaler> bundles) implements Scaler {

		static KeptScaler of(RawKernel kernel, ConcurrentLinkedDeque<RawScaler> bundles) {
			CuErrors.check("cuCtxSetCurrent", Cu.cuCtxSetCurrent(kernel.context()), DEVICE);
			RawScaler bundle = bundles.pollFirst();
			if (bundle == null) {
				throw new IllegalStateException("no bundle left");
			}
			return new KeptScaler(bundle, bundles);
		}

		@Override
		public float scale(int x) {
			return this.bundle.scale(x);
		}

		@Override
		public void close() {
			this.bundles.offerFirst(this.bundle);
		}

	}

	/**
	 * Each request borrows a stream with its buffers from a shared deque (last in, first
	 * out) and gives it back, as a stream pool lends them: a thread's stream changes.
	 */
	private record LentScaler(ConcurrentLinkedDeque<RawScaler> bundles) implements Scaler {

		static LentScaler of(RawKernel kernel, ConcurrentLinkedDeque<RawScaler> bundles) {
			CuErrors.check("cuCtxSetCurrent", Cu.cuCtxSetCurrent(kernel.context()), DEVICE);
			return new LentScaler(bundles);
		}

		@Override
		public float scale(int x) {
			RawScaler bundle = this.bundles.pollFirst();
			if (bundle == null) {
				throw new IllegalStateException("no bundle left");
			}
			try {
				return bundle.scale(x);
			}
			finally {
				this.bundles.offerFirst(bundle);
			}
		}

		@Override
		public void close() {
		}

	}

}
