package dev.offload.autoconfigure.diagnostics;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;

import dev.offload.autoconfigure.OffloadProperties.BackendType;

/**
 * Reports an {@code offload.backend} that names no backend, with the backends there are.
 * It runs before Spring Boot's generic bind failure analysis.
 */
final class BackendBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

	static final String PROPERTY = "offload.backend";

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
		if (!PROPERTY.equals(cause.getName().toString())) {
			return null;
		}
		ConfigurationProperty property = cause.getProperty();
		Object value = (property != null) ? property.getValue() : null;
		Origin origin = (property != null) ? property.getOrigin() : null;
		String description = "'" + PROPERTY + "' is '" + value + "'"
				+ ((origin != null) ? " (from " + origin + ")" : "")
				+ ", which is not an Offload backend; the backends are " + backendNames() + ".";
		String action = "Set '" + PROPERTY + "' to one of " + backendNames() + ": 'auto' uses CUDA when JCuda and a "
				+ "usable GPU are present and the host emulation otherwise, 'cuda' requires a GPU, 'host' emulates "
				+ "devices on the CPU.";
		return new FailureAnalysis(description, action, cause);
	}

	private static String backendNames() {
		return Arrays.stream(BackendType.values())
			.map((type) -> type.name().toLowerCase(Locale.ROOT))
			.collect(Collectors.joining(", "));
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
