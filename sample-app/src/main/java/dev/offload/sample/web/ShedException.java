package dev.offload.sample.web;

/**
 * A request refused at the door, before its body was read: the lane it would use is
 * saturated, the client has its share of it, or the job store is full. Answered 503 with
 * {@code Retry-After}.
 */
final class ShedException extends RuntimeException {

	ShedException(String message) {
		super(message);
	}

}
