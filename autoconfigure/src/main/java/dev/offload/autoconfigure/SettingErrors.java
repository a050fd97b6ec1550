package dev.offload.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;

/**
 * Turns what core rejects into an {@link InvalidOffloadConfigurationException} that names
 * the property, with its value as the user typed it and where it was set.
 */
final class SettingErrors {

	private final @Nullable Environment environment;

	/**
	 * Creates the errors of one environment.
	 * @param environment where the properties were bound from, or {@code null} to report
	 * the bound values
	 */
	SettingErrors(@Nullable Environment environment) {
		this.environment = environment;
	}

	/**
	 * Creates the exception for an invalid property.
	 * @param property the property's full name
	 * @param boundValue the bound value
	 * @param reason what is wrong
	 * @param action how to fix it
	 * @param cause the error that revealed it, or {@code null}
	 * @return the exception
	 */
	InvalidOffloadConfigurationException invalid(String property, @Nullable Object boundValue, @Nullable String reason,
			String action, @Nullable Throwable cause) {
		return InvalidOffloadConfigurationException.of(this.environment, property, boundValue, reason, action, cause);
	}

	/**
	 * Runs a call that core may reject with an {@link IllegalArgumentException}, and
	 * reports that as the property.
	 * @param property the property's full name
	 * @param boundValue the bound value
	 * @param action how to fix it
	 * @param call the call
	 */
	void check(String property, @Nullable Object boundValue, String action, Runnable call) {
		try {
			call.run();
		}
		catch (IllegalArgumentException ex) {
			throw invalid(property, boundValue, ex.getMessage(), action, ex);
		}
	}

}
