package dev.offload.sample.web;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Who a request comes from, for the fair share of Monte Carlo slots: the value of the
 * header {@code sample.jobs.client-id-header} names (such as {@code X-Client-Id}) when it
 * is configured and present, else the remote address. Configure the header only behind a
 * gateway that authenticates clients and sets it: a client that chooses its own id can
 * take a share per id.
 */
final class ClientKey {

	static final int MAX_LENGTH = 64;

	private final String header;

	ClientKey(String header) {
		this.header = (header != null && !header.isBlank()) ? header : null;
	}

	String of(HttpServletRequest request) {
		String id = (this.header != null) ? request.getHeader(this.header) : null;
		if (id == null || id.isBlank()) {
			return "address " + request.getRemoteAddr();
		}
		return "id " + ((id.length() <= MAX_LENGTH) ? id : id.substring(0, MAX_LENGTH));
	}

}
