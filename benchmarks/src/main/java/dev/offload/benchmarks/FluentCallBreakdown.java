package dev.offload.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import dev.offload.Device;
import dev.offload.DeviceRegistry;
import dev.offload.Kernel;
import dev.offload.benchmarks.cuda.HandWrittenScale.Ingredients;
import dev.offload.benchmarks.cuda.HandWrittenScale;
import dev.offload.benchmarks.support.Backends;
import dev.offload.benchmarks.support.CommandLine;
import dev.offload.benchmarks.support.ScaleKernel;
import dev.offload.benchmarks.support.Scaler;
import dev.offload.template.OffloadTemplate;

/**
 * Where one thread's fluent call spends the time the hand-written JCuda call does not:
 * the hand-written call of {@link FluentCallBenchmark} with Offload's memory in place of
 * its own (device buffers from the device's memory pool, page-locked buffers from the
 * staging memory, each and both), the session API with buffers allocated once (Offload's
 * sessions, streams, copies, launch and synchronize), then with the fluent call's parts
 * added one at a time (its buffers taken per call: one page-locked buffer for the input
 * and the output, two device buffers; the memory reserved up front; the session of
 * {@code template.execute}), and the fluent call. All modes run on one thread, in blocks
 * of calls that take turns (which mode first moves by one each block), so that the
 * thread's placement and the device's state are the same for all; per mode the median
 * over the blocks of the mean time per call is printed, with the difference from the
 * hand-written call.
 * <p>
 * CUDA only; usage in {@link #USAGE}.
 */
public final class FluentCallBreakdown {

	static final String USAGE = """
			Usage (CUDA only): java -cp benchmarks.jar dev.offload.benchmarks.FluentCallBreakdown [options]
			  --sizes N,...      the array sizes (1,1024)
			  --blocks N         blocks of calls per mode (40)
			  --block-calls N    calls per block (1000)
			""";

	private FluentCallBreakdown() {
	}

	public static void main(String[] args) {
		Options options = CommandLine.parse(args, USAGE, Options::from);
		int[] sizes = options.sizes();
		int blocks = options.blocks();
		int blockCalls = options.blockCalls();
		try (DeviceRegistry registry = DeviceRegistry.builder(Backends.create("cuda", 0)).build()) {
			Device device = registry.device(0);
			OffloadTemplate template = new OffloadTemplate(registry);
			System.out.printf(Locale.ROOT,
					"Fluent call breakdown, one thread, %s; Java %s; %d CPUs; %d blocks of %d calls per mode%n%n",
					device.name(), Runtime.version(), Runtime.getRuntime().availableProcessors(), blocks, blockCalls);
			System.out.println("| n | mode | median ns/call | blocks' p25-p75 ns | minus hand-written ns |");
			System.out.println("| ---: | --- | ---: | ---: | ---: |");
			for (int n : sizes) {
				List<String> names = new ArrayList<>();
				List<Supplier<Scaler>> factories = new ArrayList<>();
				add(names, factories, "hand-written", HandWrittenScale.factory(device, n));
				add(names, factories, "with Offload's device buffers",
						HandWrittenScale.factory(device, n, new Ingredients(true, false)));
				add(names, factories, "with Offload's page-locked buffers",
						HandWrittenScale.factory(device, n, new Ingredients(false, true)));
				add(names, factories, "with both", HandWrittenScale.factory(device, n, new Ingredients(true, true)));
				add(names, factories, "session API, buffers once", () -> FluentCallBenchmark.sessionScaler(device, n));
				Kernel kernel = device.kernel(ScaleKernel.KERNEL);
				add(names, factories, "session API, buffers per call",
						() -> SessionScalers.buffersPerCall(device, kernel, false, null));
				add(names, factories, "and a memory reservation",
						() -> SessionScalers.buffersPerCall(device, kernel, true, null));
				add(names, factories, "and in template.execute",
						() -> SessionScalers.buffersPerCall(device, kernel, true, template));
				add(names, factories, "fluent run()", () -> FluentCallBenchmark.fluent(template));
				print(n, names, measure(factories, n, blocks, blockCalls));
			}
		}
	}

	private static void add(List<String> names, List<Supplier<Scaler>> factories, String name,
			Supplier<Scaler> factory) {
		names.add(name);
		factories.add(factory);
	}

	private static double[][] measure(List<Supplier<Scaler>> factories, int n, int blocks, int blockCalls) {
		float[] input = new float[n];
		for (int i = 0; i < n; i++) {
			input[i] = i;
		}
		int modes = factories.size();
		Scaler[] scalers = new Scaler[modes];
		double[][] perCall = new double[modes][blocks];
		try {
			for (int mode = 0; mode < modes; mode++) {
				scalers[mode] = factories.get(mode).get();
				for (int i = 0; i < blockCalls; i++) {
					check(scalers[mode].scale(input, 2f), n);
				}
			}
			for (int block = 0; block < blocks; block++) {
				for (int turn = 0; turn < modes; turn++) {
					int mode = (block + turn) % modes;
					Scaler scaler = scalers[mode];
					long begin = System.nanoTime();
					for (int i = 0; i < blockCalls; i++) {
						check(scaler.scale(input, 2f), n);
					}
					perCall[mode][block] = (System.nanoTime() - begin) / (double) blockCalls;
				}
			}
		}
		finally {
			for (Scaler scaler : scalers) {
				if (scaler != null) {
					scaler.close();
				}
			}
		}
		return perCall;
	}

	private static void check(float[] out, int n) {
		if (out.length != n || out[n - 1] != 2f * (n - 1)) {
			throw new IllegalStateException("Wrong result at n = " + n);
		}
	}

	private static void print(int n, List<String> names, double[][] perCall) {
		double hand = percentile(perCall[0], 50);
		for (int mode = 0; mode < names.size(); mode++) {
			double median = percentile(perCall[mode], 50);
			System.out.printf(Locale.ROOT, "| %d | %s | %.0f | %.0f-%.0f | %+.0f |%n", n, names.get(mode), median,
					percentile(perCall[mode], 25), percentile(perCall[mode], 75), median - hand);
		}
	}

	private static double percentile(double[] values, int percent) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)];
	}

	private record Options(int[] sizes, int blocks, int blockCalls) {

		static Options from(CommandLine line) {
			return new Options(line.intList("--sizes", 1, 1, 1024), line.intOption("--blocks", 40),
					line.intOption("--block-calls", 1000));
		}

	}

}
