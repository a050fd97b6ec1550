package dev.offload.sample.ops;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link PromQlMetricNames}.
 */
class PromQlMetricNamesTests {

	@Test
	void ofWhenExpressionIsASelectorShouldReturnItsMetric() {
		assertThat(PromQlMetricNames.of("offload_healthy_devices == 0")).containsExactly("offload_healthy_devices");
	}

	@Test
	void ofWhenExpressionHasFunctionsLabelsAndRangesShouldReturnOnlyMetrics() {
		assertThat(PromQlMetricNames.of("histogram_quantile(0.99, sum by (le, instance, device) "
				+ "(rate(offload_session_seconds_bucket{instance=~\"$instance\",device=~\"$device\"}[$__rate_interval])))"))
			.containsExactly("offload_session_seconds_bucket");
	}

	@Test
	void ofWhenExpressionCombinesMetricsShouldReturnEach() {
		assertThat(PromQlMetricNames.of("offload_streams_active_streams / on (device) group_left "
				+ "offload_streams_max_streams > 0.9 and offload_streams offset 5m unless vector(0)"))
			.containsExactly("offload_streams", "offload_streams_active_streams", "offload_streams_max_streams");
	}

	@Test
	void ofWhenLabelValueLooksLikeAMetricShouldIgnoreIt() {
		assertThat(PromQlMetricNames.of("count by (instance, job) (offload_healthy_devices{backend=\"host_x\"}) > 0"))
			.containsExactly("offload_healthy_devices");
	}

	@Test
	void ofWhenNumbersHaveExponentsShouldNotTakeThemForMetrics() {
		assertThat(PromQlMetricNames.of("offload_streams > 1e3")).containsExactly("offload_streams");
	}

	@Test
	void ofLabelValuesShouldReturnTheMetric() {
		assertThat(PromQlMetricNames.ofLabelValues("label_values(offload_streams{instance=~\"$instance\"}, device)"))
			.isEqualTo("offload_streams");
	}

	@Test
	void ofLabelValuesWhenQueryIsOfAnotherFormShouldThrow() {
		assertThatIllegalArgumentException().isThrownBy(() -> PromQlMetricNames.ofLabelValues("query_result(up)"))
			.withMessageContaining("query_result(up)");
	}

}
