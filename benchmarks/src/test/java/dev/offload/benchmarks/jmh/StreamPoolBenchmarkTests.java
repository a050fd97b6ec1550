package dev.offload.benchmarks.jmh;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class StreamPoolBenchmarkTests {

	@ParameterizedTest
	@ValueSource(strings = { "free", "host" })
	void benchmarkMethodsWhenCalledOnceShouldBorrowAndReleaseAStream(String backend) throws Exception {
		StreamPoolBenchmark benchmark = new StreamPoolBenchmark();
		benchmark.backend = backend;
		benchmark.setUp();
		try {
			assertThat(benchmark.offloadPool()).isNotNull();
			assertThat(benchmark.offloadSession()).isNotNegative();
			assertThat(benchmark.llvmStack()).isNotNull();
			assertThat(benchmark.commonsPool2()).isNotNull();
		}
		finally {
			benchmark.tearDown();
		}
	}

}
