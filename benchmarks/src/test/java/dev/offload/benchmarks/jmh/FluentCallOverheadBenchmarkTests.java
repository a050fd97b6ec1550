package dev.offload.benchmarks.jmh;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class FluentCallOverheadBenchmarkTests {

	@ParameterizedTest
	@ValueSource(ints = { 1, 1024 })
	void aFluentCallOnTheFreeBackendShouldReturnItsOutputAndGiveEverythingBack(int n) {
		FluentCallOverheadBenchmark benchmark = new FluentCallOverheadBenchmark();
		benchmark.n = n;
		benchmark.setUp();
		try {
			for (int i = 0; i < 3; i++) {
				assertThat(benchmark.fluentRun()).hasSize(n);
			}
		}
		finally {
			benchmark.tearDown();
		}
	}

}
