package dev.offload.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

import dev.offload.OffloadException;

/**
 * A value under {@code offload.*} that Offload cannot start with; it names the property,
 * the value, what is wrong and how to fix it, for a failure analyzer to report at
 * startup.
 */
public class InvalidOffloadConfigurationException extends OffloadException {

	private final String property;

	private final @Nullable Object value;

	private final @Nullable String reason;

	private final String action;

	private final @Nullable Origin origin;

	/**
	 * Creates an exception.
	 * @param property the property's full name, such as
	 * {@code offload.stream-pool.max-size}
	 * @param value the value bound to it
	 * @param reason what is wrong with the value
	 * @param action how to fix it
	 * @param cause the error that revealed it, or {@code null}
	 */
	public InvalidOffloadConfigurationException(String property, @Nullable Object value, @Nullable String reason,
			String action, @Nullable Throwable cause) {
		this(property, value, reason, action, cause, null);
	}

	/**
	 * Creates an exception that says where the value was set.
	 * @param property the property's full name, such as
	 * {@code offload.stream-pool.max-size}
	 * @param value the value as the user typed it, or as bound when it was not typed
	 * @param reason what is wrong with the value
	 * @param action how to fix it
	 * @param cause the error that revealed it, or {@code null}
	 * @param origin where the value was set (a file and line), or {@code null} if unknown
	 */
	public InvalidOffloadConfigurationException(String property, @Nullable Object value, @Nullable String reason,
			String action, @Nullable Throwable cause, @Nullable Origin origin) {
		super("Invalid value '" + value + "' for '" + property + "': " + reason, cause);
		this.property = property;
		this.value = value;
		this.reason = reason;
		this.action = action;
		this.origin = origin;
	}

	/**
	 * Creates an exception for a property of the environment, with its value as the user
	 * typed it (such as {@code -5s} rather than the bound {@code PT-5S}) and where it was
	 * set.
	 * @param environment the environment the property was bound from, or {@code null} to
	 * use the bound value
	 * @param property the property's full name, such as
	 * {@code offload.stream-pool.max-size}
	 * @param boundValue the bound value, shown when the property is not in the
	 * environment (a default)
	 * @param reason what is wrong with the value
	 * @param action how to fix it
	 * @param cause the error that revealed it, or {@code null}
	 * @return the exception
	 */
	public static InvalidOffloadConfigurationException of(@Nullable Environment environment, String property,
			@Nullable Object boundValue, @Nullable String reason, String action, @Nullable Throwable cause) {
		ConfigurationProperty typed = find(environment, property);
		if (typed == null) {
			return new InvalidOffloadConfigurationException(property, boundValue, reason, action, cause, null);
		}
		return new InvalidOffloadConfigurationException(property, typed.getValue(), reason, action, cause,
				typed.getOrigin());
	}

	private static @Nullable ConfigurationProperty find(@Nullable Environment environment, String property) {
		if (environment == null || !ConfigurationPropertyName.isValid(property)) {
			return null;
		}
		ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			ConfigurationProperty found = source.getConfigurationProperty(name);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/**
	 * Returns the property's full name.
	 * @return the name, such as {@code offload.stream-pool.max-size}
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * Returns the value bound to the property.
	 * @return the value
	 */
	public @Nullable Object getValue() {
		return this.value;
	}

	/**
	 * Returns what is wrong with the value.
	 * @return the reason
	 */
	public @Nullable String getReason() {
		return this.reason;
	}

	/**
	 * Returns where the value was set.
	 * @return the origin, such as a file and line, or {@code null} if unknown
	 */
	public @Nullable Origin getOrigin() {
		return this.origin;
	}

	/**
	 * Returns how to fix the configuration.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
