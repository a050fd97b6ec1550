package dev.offload.benchmarks.jmh;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryBenchmarkTests {

	@Test
	void benchmarkMethodsWhenCalledOnceShouldAdmitAndGiveBackTheirMemory() throws Throwable {
		MemoryBenchmark benchmark = new MemoryBenchmark();
		benchmark.setUp();
		try {
			assertThat(benchmark.cacheHitAcquireRelease()).isEqualTo(4096);
			assertThat(benchmark.sessionBudgetAdmission()).isEqualTo(1 << 20);
			assertThat(benchmark.sessionOpenClose()).isNotNegative();
			assertThat(benchmark.budgetAcquireRelease()).isEqualTo(1 << 20);
			assertThat(benchmark.usedBytes()).isZero();
		}
		finally {
			benchmark.tearDown();
		}
	}

}
