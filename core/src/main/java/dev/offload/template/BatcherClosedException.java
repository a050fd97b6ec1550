package dev.offload.template;

/**
 * A {@link Batcher} is closed, or its registry is shutting down: a new item is refused at
 * once, and an item still queued when the registry's await-termination ended is failed
 * with it. An {@link IllegalStateException}, as a closed batcher's refusal always was.
 */
public class BatcherClosedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * The batcher's name.
	 */
	private final String batcher;

	/**
	 * Creates an exception.
	 * @param batcher the batcher's name
	 * @param message the description, naming the batcher and why it is closed
	 */
	public BatcherClosedException(String batcher, String message) {
		super(message);
		this.batcher = batcher;
	}

	/**
	 * Returns the batcher's name.
	 * @return the name
	 */
	public String getBatcher() {
		return this.batcher;
	}

}
