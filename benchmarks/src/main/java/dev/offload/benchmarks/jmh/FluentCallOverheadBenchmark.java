package dev.offload.benchmarks.jmh;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.benchmarks.SessionScalers;
import dev.offload.benchmarks.support.Scaler;
import dev.offload.kernel.KernelRef;
import dev.offload.kernel.ModuleDefinition;
import dev.offload.kernel.ParamKind;
import dev.offload.template.OffloadTemplate;

/**
 * Offload's own work per fluent call, on {@link FreeBackend} (whose driver calls cost
 * nothing, while its page-locked memory is real, so the copies into and out of staging
 * are measured): {@code template.kernel(SCALE).threads(n).arg(n).arg(2f).in(x)
 * .outFloats(n).run().floats(0)}, the call of the fluent-call benchmark against
 * hand-written JCuda. What a GPU adds to it is the driver's time, the same for any
 * caller. Run with {@code -prof gc} to see the allocation per call:
 * {@code java -jar benchmarks.jar FluentCallOverheadBenchmark -prof gc}. Beside it, the
 * same work on the session API with buffers allocated once, the hand-written code's
 * shape, and on the session API in {@code template.execute} with the fluent call's
 * buffers taken per call and its memory reserved: the differences are what the per-call
 * buffers cost, and what the fluent layer itself (its builder, parameters, kernel lookup
 * and result) adds.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class FluentCallOverheadBenchmark {

	/**
	 * {@code scale(int n, float a, const float* in, float* out)}, whose launches do
	 * nothing here.
	 */
	static final KernelRef SCALE = KernelRef.of(ModuleDefinition.builder("free-scale")
		.hostKernel("scale", List.of(ParamKind.INT32, ParamKind.FLOAT32, ParamKind.POINTER, ParamKind.POINTER),
				(thread) -> {
				})
		.build(), "scale");

	/** The elements in and out. */
	@Param({ "1", "1024", "65536" })
	public int n;

	private DeviceRegistry registry;

	private OffloadTemplate template;

	private float[] input;

	/** The session API with buffers allocated once. */
	private Scaler buffersOnce;

	/** The session API in {@code template.execute}, buffers per call, memory reserved. */
	private Scaler buffersPerCall;

	/**
	 * Starts a registry on the free backend, with the session API's scalers.
	 */
	@Setup(Level.Trial)
	public void setUp() {
		this.registry = DeviceRegistry.builder(new FreeBackend()).build();
		this.template = new OffloadTemplate(this.registry);
		this.input = new float[this.n];
		Device device = this.registry.device(0);
		Kernel kernel = device.kernel(SCALE);
		this.buffersOnce = SessionScalers.buffersOnce(device, kernel, this.n);
		this.buffersPerCall = SessionScalers.buffersPerCall(device, kernel, true, this.template);
	}

	/**
	 * Closes the scalers' buffers and the registry.
	 */
	@TearDown(Level.Trial)
	public void tearDown() {
		this.buffersOnce.close();
		this.registry.close();
	}

	/**
	 * One fluent call: staging in, launch, staging out, the result read.
	 * @return the output
	 */
	@Benchmark
	public float[] fluentRun() {
		return this.template.kernel(SCALE)
			.threads(this.n)
			.arg(this.n)
			.arg(2f)
			.in(this.input)
			.outFloats(this.n)
			.run()
			.floats(0);
	}

	/**
	 * The same work on the session API with buffers allocated once.
	 * @return the output
	 */
	@Benchmark
	public float[] sessionRun() {
		return this.buffersOnce.scale(this.input, 2f);
	}

	/**
	 * The same work in one session and buffers per benchmark thread, kept for every call:
	 * Offload's enqueues and synchronize alone. With {@code -t 2} or more, beside
	 * {@link #fluentRun()}, it tells what the threads' requests share from what each
	 * thread's calls cost.
	 * @param kept the thread's session and buffers
	 * @return the output
	 */
	@Benchmark
	public float[] keptSessionRun(KeptSession kept) {
		return kept.scaler.scale(this.input, 2f);
	}

	/**
	 * A benchmark thread's session and buffers, opened once.
	 */
	@State(Scope.Thread)
	public static class KeptSession {

		private Scaler scaler;

		/**
		 * Opens the thread's session and its buffers.
		 * @param benchmark the benchmark's registry and size
		 */
		@Setup(Level.Trial)
		public void setUp(FluentCallOverheadBenchmark benchmark) {
			Device device = benchmark.registry.device(0);
			this.scaler = SessionScalers.sessionKept(device, device.kernel(SCALE), benchmark.n);
		}

		/**
		 * Closes the thread's session.
		 */
		@TearDown(Level.Trial)
		public void tearDown() {
			this.scaler.close();
		}

	}

	/**
	 * The same work on the session API in {@code template.execute}, buffers taken per
	 * call and the memory reserved up front, as the fluent call does.
	 * @return the output
	 */
	@Benchmark
	public float[] templatePerCallRun() {
		return this.buffersPerCall.scale(this.input, 2f);
	}

}
