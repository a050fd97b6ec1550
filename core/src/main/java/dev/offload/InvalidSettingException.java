package dev.offload;

/**
 * A setting of Offload's configuration (a pool size, a timeout, a device count) is out of
 * bounds; it names the setting so that a configuration layer can point at the property it
 * came from.
 */
public class InvalidSettingException extends IllegalArgumentException {

	private final String setting;

	/**
	 * Creates an exception.
	 * @param setting the setting's name as in the API, such as {@code initialSize}
	 * @param message what is wrong, starting with the setting's name
	 */
	public InvalidSettingException(String setting, String message) {
		super(message);
		this.setting = setting;
	}

	/**
	 * Returns the name of the setting that is out of bounds.
	 * @return the name, such as {@code initialSize} or {@code borrowTimeout}
	 */
	public String getSetting() {
		return this.setting;
	}

}
