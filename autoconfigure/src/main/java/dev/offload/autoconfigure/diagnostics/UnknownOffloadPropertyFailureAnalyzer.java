package dev.offload.autoconfigure.diagnostics;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

import dev.offload.autoconfigure.OffloadProperties;

/**
 * Reports a key under {@code offload.*} that is no Offload property, such as a misspelt
 * {@code offload.stream-pool.inital-size}, with where it was set and the nearest valid
 * property (taken from {@link OffloadProperties}). It runs before Spring Boot's generic
 * unbound-property analysis.
 */
final class UnknownOffloadPropertyFailureAnalyzer
		extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> implements Ordered {

	private static final String PREFIX = "offload";

	// A map key in a property name, such as the '1' of
	// offload.devices-config.1.stream-pool.initial-size.
	private static final String ANY_KEY = "*";

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
		ConfigurationPropertyName prefix = ConfigurationPropertyName.of(PREFIX);
		ConfigurationProperty unknown = cause.getUnboundProperties()
			.stream()
			.filter((property) -> prefix.isAncestorOf(property.getName()))
			.min(Comparator.comparing((property) -> property.getName().toString()))
			.orElse(null);
		if (unknown == null) {
			return null;
		}
		List<String> elements = elements(unknown.getName());
		String nearest = nearest(elements, knownProperties());
		String key = String.join(".", elements);
		String description = "'" + key + "' is not an Offload property"
				+ ((unknown.getOrigin() != null)
						? " (set to '" + unknown.getValue() + "' in " + unknown.getOrigin() + ")" : "")
				+ "; the nearest one is '" + nearest + "'.";
		String action = "Rename '" + key + "' to '" + nearest + "' if that is what you meant, or remove it.";
		return new FailureAnalysis(description, action, cause);
	}

	private static List<String> elements(ConfigurationPropertyName name) {
		List<String> elements = new ArrayList<>();
		for (int i = 0; i < name.getNumberOfElements(); i++) {
			elements.add(name.getElement(i, Form.DASHED));
		}
		return elements;
	}

	/**
	 * Returns the known property that is the fewest edits from the unknown one; a map key
	 * of a known property takes the unknown one's element at that place. Maps of free
	 * keys are never suggested.
	 */
	static @Nullable String nearest(List<String> unknown, List<List<String>> known) {
		String key = String.join(".", unknown);
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (List<String> candidate : known) {
			if (ANY_KEY.equals(candidate.get(candidate.size() - 1))) {
				// A map of free keys (offload.test.*, left to the test artifact)
				// takes any key, so it would match every typo at the cost of its
				// prefix alone; no key under it is ever unknown.
				continue;
			}
			List<String> filled = new ArrayList<>(candidate);
			for (int i = 0; i < filled.size(); i++) {
				if (ANY_KEY.equals(filled.get(i)) && i < unknown.size()) {
					filled.set(i, unknown.get(i));
				}
			}
			String name = String.join(".", filled);
			int distance = distance(key, name);
			if (distance < bestDistance) {
				best = name;
				bestDistance = distance;
			}
		}
		return best;
	}

	/**
	 * Lists the leaf properties of {@link OffloadProperties}, each as its dashed
	 * elements, with {@value #ANY_KEY} for a map key.
	 */
	static List<List<String>> knownProperties() {
		List<List<String>> properties = new ArrayList<>();
		collect(List.of(PREFIX), ResolvableType.forClass(OffloadProperties.class), properties);
		return properties;
	}

	private static void collect(List<String> prefix, ResolvableType type, List<List<String>> properties) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type.toClass())) {
			if (descriptor.getReadMethod() == null || "class".equals(descriptor.getName())) {
				continue;
			}
			List<String> name = new ArrayList<>(prefix);
			name.add(DataObjectPropertyName.toDashedForm(descriptor.getName()));
			ResolvableType propertyType = ResolvableType.forMethodReturnType(descriptor.getReadMethod());
			if (Map.class.isAssignableFrom(propertyType.toClass())) {
				name.add(ANY_KEY);
				propertyType = propertyType.asMap().getGeneric(1);
			}
			if (isNested(propertyType.toClass())) {
				collect(name, propertyType, properties);
			}
			else {
				properties.add(name);
			}
		}
	}

	private static boolean isNested(Class<?> type) {
		return type.getEnclosingClass() == OffloadProperties.class && !type.isEnum();
	}

	/**
	 * The edits from {@code key} to {@code name}; a key that is {@code name} cut short
	 * (such as {@code offload.host.workers} for {@code offload.host.workers-per-device})
	 * counts as one edit, however much of the name it leaves out.
	 */
	private static int distance(String key, String name) {
		int distance = levenshtein(key, name);
		if (name.length() > key.length()) {
			distance = Math.min(distance, levenshtein(key, name.substring(0, key.length())) + 1);
		}
		return distance;
	}

	private static int levenshtein(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
