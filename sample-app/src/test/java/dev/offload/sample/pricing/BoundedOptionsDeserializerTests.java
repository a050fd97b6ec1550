package dev.offload.sample.pricing;

import java.util.Collections;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link BoundedOptionsDeserializer}: a batch binds at most one option more
 * than the limit, whatever the body holds, and errors keep their index.
 */
class BoundedOptionsDeserializerTests {

	private final JsonMapper json = JsonMapper.builder().build();

	@Test
	void batchLargerThanTheLimitShouldBindOneOptionMoreThanTheLimit() {
		String body = "{\"options\":[" + String.join(",", Collections.nCopies(100_000, "{}")) + "]}";
		assertThat(this.json.readValue(body, PriceRequest.class).options()).hasSize(PriceRequest.MAX_OPTIONS + 1);
	}

	@Test
	void batchWithinTheLimitShouldBindEveryOptionAndNulls() {
		PriceRequest request = this.json.readValue(
				"{\"options\":[{\"spot\":1,\"strike\":2,\"maturity\":1,\"rate\":0,\"volatility\":0.2},null]}",
				PriceRequest.class);
		assertThat(request.options()).containsExactly(new OptionSpec(1.0, 2.0, 1.0, 0.0, 0.2), null);
	}

	@Test
	void invalidOptionShouldBeReportedAtItsIndex() {
		assertThatExceptionOfType(DatabindException.class)
			.isThrownBy(() -> this.json.readValue("{\"options\":[{},{\"spot\":\"lots\"}]}", PriceRequest.class))
			.satisfies((ex) -> assertThat(ex.getPathReference()).contains("options").contains("[1]"));
	}

}
