package dev.offload.template;

/**
 * Thrown when the session bound to the thread does not fit a call's {@link Propagation}:
 * none for {@link Propagation#MANDATORY}, one for {@link Propagation#NEVER} (Spring's
 * {@code IllegalTransactionStateException}).
 */
public class IllegalSessionStateException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * The propagation that was not met.
	 */
	private final Propagation propagation;

	/**
	 * Creates an exception.
	 * @param propagation the propagation that was not met
	 * @param message the description
	 */
	public IllegalSessionStateException(Propagation propagation, String message) {
		super(message);
		this.propagation = propagation;
	}

	/**
	 * Returns the propagation that was not met.
	 * @return the propagation
	 */
	public Propagation propagation() {
		return this.propagation;
	}

}
