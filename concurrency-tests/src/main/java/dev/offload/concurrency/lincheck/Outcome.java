package dev.offload.concurrency.lincheck;

/**
 * What an operation of a Lincheck check reports, compared with what the sequential
 * specification says.
 */
public enum Outcome {

	/** A stream was lent (or, for a session, is its own). */
	LENT,

	/**
	 * A stream was lent that another session holds: never allowed, the specification
	 * never says it.
	 */
	LENT_TWICE,

	/** A bounded pool stayed full for the borrow timeout. */
	TIMED_OUT,

	/** The pool is shut down (or the registry closed) and lends nothing. */
	REFUSED,

	/**
	 * The stream went back to the pool (or was destroyed because the pool is shut down).
	 */
	RELEASED,

	/** The stream was destroyed because its work failed. */
	DISCARDED,

	/** The thread held nothing to give back. */
	NOTHING_HELD,

	/** A session was opened; its stream is borrowed on its first use. */
	OPENED,

	/** The session was handed to the completion thread. */
	CLOSING

}
