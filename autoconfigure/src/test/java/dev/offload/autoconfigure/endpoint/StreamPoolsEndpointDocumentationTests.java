package dev.offload.autoconfigure.endpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.offload.DeviceRegistry;
import dev.offload.OffloadSession;
import dev.offload.autoconfigure.ObservabilityWebTests;
import dev.offload.spring.actuate.endpoint.StreamPoolsEndpoint;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/observability.md} against what {@link StreamPoolsEndpoint} returns: the
 * example of {@code GET /actuator/streampools} has the keys of a real response in the
 * same state, and the page's field table describes every one of them.
 */
@ObservabilityWebTests
class StreamPoolsEndpointDocumentationTests {

	private static final Pattern JSON_BLOCK = Pattern.compile("(?m)^```json\\n(.*?)^```", Pattern.DOTALL);

	private static final Pattern TABLE_FIELD = Pattern.compile("`([A-Za-z.\\[\\]]+)`");

	private static final JsonMapper json = JsonMapper.builder().build();

	@Autowired
	private RestTestClient client;

	@Autowired
	private DeviceRegistry registry;

	@Test
	void exampleShouldHaveTheKeysOfARealResponse() throws IOException {
		Set<String> real = keys(realResponse());
		Set<String> documented = keys(json.readTree(section(0)));
		assertThat(documented)
			.as("keys of the example in docs/observability.md; the real response is %s", realResponseText())
			.containsExactlyElementsOf(real);
	}

	@Test
	void batchersExampleShouldHaveTheKeysOfADescriptor() throws IOException {
		JsonNode batchers = json.readTree("{" + section(2) + "}").get("batchers");
		Set<String> components = Arrays.stream(StreamPoolsEndpoint.BatcherDescriptor.class.getRecordComponents())
			.map((component) -> component.getName())
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(batchers).isNotEmpty();
		for (JsonNode batcher : batchers) {
			assertThat(new TreeSet<>(batcher.propertyNames())).containsExactlyElementsOf(components);
		}
	}

	@Test
	void fieldTablesShouldDescribeEveryKeyOfARealResponse() throws IOException {
		String page = page();
		Set<String> described = new TreeSet<>();
		for (String line : page.substring(page.indexOf("## The `streampools` endpoint"), page.indexOf("## Health"))
			.lines()
			.filter((line) -> line.startsWith("| `"))
			.toList()) {
			Matcher field = TABLE_FIELD.matcher(line.substring(0, line.indexOf(" | ", 2)));
			while (field.find()) {
				described.add(field.group(1));
			}
		}
		Set<String> undescribed = new TreeSet<>();
		for (String key : keys(realResponse())) {
			String field = key.replaceFirst("^devices\\[\\]\\.", "").replaceFirst("^batchers\\[\\]\\.", "");
			// A key is described by its row, its parent's (a map's keys), or its
			// children's (an object such as pool).
			if (described.stream()
				.noneMatch((entry) -> field.equals(entry) || (field + "[]").equals(entry)
						|| field.startsWith(entry + ".") || entry.startsWith(field + "."))) {
				undescribed.add(key);
			}
		}
		assertThat(undescribed).as("keys of the endpoint's response that docs/observability.md does not describe")
			.isEmpty();
	}

	/**
	 * The response in the example's state: one session holding a stream on each device.
	 */
	private JsonNode realResponse() throws IOException {
		return json.readTree(realResponseText());
	}

	private String realResponseText() {
		try (OffloadSession first = this.registry.openSession(0);
				OffloadSession second = this.registry.openSession(1)) {
			first.streamId();
			second.streamId();
			byte[] body = this.client.get()
				.uri("/actuator/streampools")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.returnResult()
				.getResponseBody();
			return new String((body != null) ? body : new byte[0], StandardCharsets.UTF_8);
		}
	}

	/**
	 * Every key path of a response: {@code devices[].pool.size}; the keys of a map by
	 * priority class or by kind are {@code *}.
	 */
	private static Set<String> keys(JsonNode node) {
		Set<String> keys = new TreeSet<>();
		collect(node, "", keys);
		return keys;
	}

	private static void collect(JsonNode node, String path, Set<String> keys) {
		if (node.isObject()) {
			boolean map = path.endsWith("byPriority") || path.endsWith("driverAllocations")
					|| path.endsWith("driverFrees");
			for (Map.Entry<String, JsonNode> property : node.properties()) {
				String key = path.isEmpty() ? property.getKey() : path + "." + (map ? "*" : property.getKey());
				keys.add(key);
				collect(property.getValue(), key, keys);
			}
		}
		else if (node.isArray()) {
			for (JsonNode element : node) {
				collect(element, path + "[]", keys);
			}
		}
	}

	/**
	 * The {@code index}th JSON block of the endpoint's section.
	 */
	private static String section(int index) throws IOException {
		String page = page();
		Matcher block = JSON_BLOCK.matcher(page);
		int start = page.indexOf("## The `streampools` endpoint");
		int found = -1;
		while (block.find()) {
			if (block.start() > start && ++found == index) {
				return block.group(1);
			}
		}
		throw new IllegalStateException("No JSON block " + index + " in the streampools section");
	}

	private static String page() throws IOException {
		for (Path candidate = Path.of("").toAbsolutePath(); candidate != null; candidate = candidate.getParent()) {
			Path page = candidate.resolve("docs/observability.md");
			if (Files.isRegularFile(page)) {
				return Files.readString(page, StandardCharsets.UTF_8);
			}
		}
		throw new IllegalStateException("No docs/observability.md above " + Path.of("").toAbsolutePath());
	}

}
