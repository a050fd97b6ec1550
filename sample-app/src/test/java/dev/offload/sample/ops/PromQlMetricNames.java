package dev.offload.sample.ops;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers,
 * range selectors, grouping label lists, Grafana variables, function names and keywords
 * are taken out. Enough for the queries of a dashboard and alert rules, not a PromQL
 * parser.
 */
final class PromQlMetricNames {

	private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");

	private static final Pattern GRAFANA_VARIABLE = Pattern.compile("\\$\\{[^}]*}|\\$\\w+");

	private static final Pattern LABEL_MATCHERS = Pattern.compile("\\{[^}]*}");

	private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");

	private static final Pattern LABEL_LIST = Pattern
		.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");

	private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:])[a-zA-Z_:][\\w:]*(\\s*\\()?");

	private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
			"ignoring", "group_left", "group_right", "inf", "nan");

	private PromQlMetricNames() {
	}

	/**
	 * The metric names that an expression reads.
	 * @param expression a PromQL expression, possibly with Grafana variables such as
	 * {@code $device}
	 * @return the metric names, sorted
	 */
	static Set<String> of(String expression) {
		String rest = STRING.matcher(expression).replaceAll(" ");
		rest = GRAFANA_VARIABLE.matcher(rest).replaceAll(" ");
		rest = LABEL_MATCHERS.matcher(rest).replaceAll(" ");
		rest = RANGE.matcher(rest).replaceAll(" ");
		rest = LABEL_LIST.matcher(rest).replaceAll(" ");
		Set<String> names = new TreeSet<>();
		Matcher matcher = IDENTIFIER.matcher(rest);
		while (matcher.find()) {
			String name = matcher.group().replaceAll("[\\s(]", "");
			boolean call = matcher.group(1) != null;
			if (!call && !KEYWORDS.contains(name.toLowerCase())) {
				names.add(name);
			}
		}
		return names;
	}

	/**
	 * The metric name of a Grafana variable query {@code label_values(metric{...},
	 * label)}.
	 * @param query the variable's query
	 * @return the metric name
	 * @throws IllegalArgumentException if the query is not of that form
	 */
	static String ofLabelValues(String query) {
		Matcher matcher = Pattern.compile("^\\s*label_values\\(\\s*([a-zA-Z_:][\\w:]*)").matcher(query);
		if (!matcher.find()) {
			throw new IllegalArgumentException("Not a label_values(metric, label) query: " + query);
		}
		return matcher.group(1);
	}

}
