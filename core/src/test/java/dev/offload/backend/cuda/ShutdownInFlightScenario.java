package dev.offload.backend.cuda;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.offload.DeviceRegistry;
import dev.offload.template.KernelResult;
import dev.offload.template.OffloadAttributes;
import dev.offload.template.OffloadTemplate;

/**
 * Closes a registry while an asynchronous call with a 64 MB output is in flight, not
 * waited for, round after round, and prints one {@code ROUND=n OUTCOME=...} line per
 * round, then {@code SURVIVED=rounds}. {@link CudaShutdownGpuTests} runs it in its own
 * JVM, so that a crash in native code fails the test instead of the test run.
 */
public final class ShutdownInFlightScenario {

	private static final int FLOATS = 16 << 20;

	private ShutdownInFlightScenario() {
	}

	/**
	 * Runs the scenario.
	 * @param args the rounds, and {@code deadline} to give each call a session deadline
	 * that passes before its work ends
	 */
	public static void main(String[] args) throws Exception {
		int rounds = Integer.parseInt(args[0]);
		boolean deadline = args.length > 1 && "deadline".equals(args[1]);
		float[] x = new float[FLOATS];
		for (int i = 0; i < x.length; i++) {
			x[i] = i & 1023;
		}
		for (int round = 0; round < rounds; round++) {
			DeviceRegistry registry = DeviceRegistry.builder(CudaTestBackends.create())
				.deviceIds(List.of(0))
				.awaitTermination(Duration.ofSeconds(30))
				.build();
			OffloadTemplate template = new OffloadTemplate(registry);
			OffloadAttributes attributes = deadline ? OffloadAttributes.DEFAULTS.withTimeout(Duration.ofNanos(1))
					: OffloadAttributes.DEFAULTS;
			CompletableFuture<KernelResult> result = template.kernel(CudaBatcherGpuTests.SCALE)
				.attributes(attributes)
				.threads(x.length)
				.arg(x.length)
				.arg(2f)
				.in(x)
				.outFloats(x.length)
				.runAsync();
			registry.close();
			String outcome;
			try {
				float[] out = result.get(60, TimeUnit.SECONDS).floats(0);
				outcome = (out[x.length - 1] == 2f * x[x.length - 1] && out[1] == 2f) ? "ok" : "wrong";
			}
			catch (Exception ex) {
				Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
				outcome = cause.getClass().getSimpleName();
			}
			System.out.println("ROUND=" + round + " OUTCOME=" + outcome);
		}
		System.out.println("SURVIVED=" + rounds);
	}

}
