package dev.offload.autoconfigure.diagnostics;

import dev.offload.OffloadException;

/**
 * A value under {@code offload.*} that Offload cannot start with; it names the property, the value, what is wrong
 * and how to fix it, for {@link InvalidOffloadConfigurationFailureAnalyzer} to report at startup.
 */
public class InvalidOffloadConfigurationException extends OffloadException {

	private final String property;

	private final Object value;

	private final String reason;

	private final String action;

	/**
	 * Creates an exception.
	 * @param property the property's full name, such as {@code offload.stream-pool.max-size}
	 * @param value the value bound to it
	 * @param reason what is wrong with the value
	 * @param action how to fix it
	 * @param cause the error that revealed it, or {@code null}
	 */
	public InvalidOffloadConfigurationException(String property, Object value, String reason, String action,
			Throwable cause) {
		super("Invalid value '" + value + "' for '" + property + "': " + reason, cause);
		this.property = property;
		this.value = value;
		this.reason = reason;
		this.action = action;
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
	public Object getValue() {
		return this.value;
	}

	/**
	 * Returns what is wrong with the value.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

	/**
	 * Returns how to fix the configuration.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
