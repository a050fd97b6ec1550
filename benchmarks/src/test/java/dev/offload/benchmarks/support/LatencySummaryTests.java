package dev.offload.benchmarks.support;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LatencySummaryTests {

	@Test
	void ofWhenOneThousandValuesShouldTakeNearestRanks() {
		long[] values = LongStream.rangeClosed(1, 1000).map((v) -> 1001 - v).toArray();
		LatencySummary summary = LatencySummary.of(values);
		assertThat(summary).isEqualTo(new LatencySummary(1000, 500, 990, 999, 1000));
	}

	@Test
	void ofWhenOneValueShouldReportItEverywhere() {
		assertThat(LatencySummary.of(new long[] { 7 })).isEqualTo(new LatencySummary(1, 7, 7, 7, 7));
	}

	@Test
	void ofWhenNoValuesShouldBeEmpty() {
		assertThat(LatencySummary.of(new long[0])).isEqualTo(LatencySummary.EMPTY);
	}

}
