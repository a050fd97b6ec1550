package dev.offload.template;

/**
 * How an {@link Offload @Offload} call or an {@link OffloadTemplate} callback relates to
 * the session bound to the thread, with the meanings of Spring's transaction propagation.
 * A bound session "matches" when it belongs to the same
 * {@link dev.offload.DeviceRegistry} and, if the call names a device, to that device.
 */
public enum Propagation {

	/**
	 * Joins the matching bound session; opens a new one if there is none. The default.
	 */
	REQUIRED,

	/**
	 * Always opens a new session, on its own stream; the bound one, if any, is suspended
	 * for the call and bound again afterwards.
	 */
	REQUIRES_NEW,

	/**
	 * Joins the matching bound session; throws {@link IllegalSessionStateException} if
	 * there is none.
	 */
	MANDATORY,

	/**
	 * Joins the matching bound session if there is one; otherwise runs with no session
	 * bound.
	 */
	SUPPORTS,

	/**
	 * Runs with no session bound; the bound one, if any, is suspended for the call and
	 * bound again afterwards.
	 */
	NOT_SUPPORTED,

	/**
	 * Runs with no session bound; throws {@link IllegalSessionStateException} if a
	 * session of the registry is bound.
	 */
	NEVER;

	/**
	 * Tells whether the call always has a session (it joins or opens one, or throws).
	 * @return {@code true} for {@link #REQUIRED}, {@link #REQUIRES_NEW} and
	 * {@link #MANDATORY}
	 */
	public boolean alwaysHasSession() {
		return this == REQUIRED || this == REQUIRES_NEW || this == MANDATORY;
	}

}
