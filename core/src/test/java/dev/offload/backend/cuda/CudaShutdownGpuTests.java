package dev.offload.backend.cuda;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shutdown while an asynchronous call is in flight on CUDA: the registry waits for the
 * outputs the call reads from page-locked memory after its session ended, so that the JVM
 * never reads memory shutdown freed. Each scenario runs in a child JVM
 * ({@link ShutdownInFlightScenario}): a crash fails the test, not the test run.
 */
@GpuTests
class CudaShutdownGpuTests {

	private static final int ROUNDS = 10;

	@Test
	void closingTheRegistryWithARunAsyncInFlightShouldDeliverItsOutputs() throws Exception {
		ChildJvm.Result child = ChildJvm.run("shutdown with a runAsync in flight", ShutdownInFlightScenario.class,
				Map.of(), String.valueOf(ROUNDS));
		assertThat(child.exitCode()).as(child.output()).isZero();
		assertThat(child.output()).contains("SURVIVED=" + ROUNDS);
		assertThat(child.output().lines().filter((line) -> line.startsWith("ROUND="))).hasSize(ROUNDS)
			.allMatch((line) -> line.endsWith("OUTCOME=ok"));
	}

	@Test
	void closingTheRegistryWithARunAsyncPastItsDeadlineShouldNotCrash() throws Exception {
		ChildJvm.Result child = ChildJvm.run("shutdown with a runAsync past its deadline",
				ShutdownInFlightScenario.class, Map.of(), String.valueOf(ROUNDS), "deadline");
		assertThat(child.exitCode()).as(child.output()).isZero();
		assertThat(child.output()).contains("SURVIVED=" + ROUNDS);
		assertThat(child.output().lines().filter((line) -> line.startsWith("ROUND="))).hasSize(ROUNDS)
			.allMatch((line) -> line.endsWith("OUTCOME=ok") || line.endsWith("OUTCOME=SessionTimeoutException"));
	}

}
