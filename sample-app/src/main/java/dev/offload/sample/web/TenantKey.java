package dev.offload.sample.web;

import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.server.ResponseStatusException;

import static org.springframework.http.HttpStatus.BAD_REQUEST;

/**
 * Whose a request is, for the fair shares of the Monte Carlo slots, the queue and the job
 * store: the value of the header {@code sample.tenants.header} names (such as
 * {@code X-Tenant-Id}) when it is configured and present, else {@code address:} and the
 * remote address. Configure the header only behind a gateway that authenticates clients
 * and sets it (replacing any value the client sent): a client that chooses its own id can
 * take a share per id. A header value that is not a tenant id (1 to 64 characters of
 * {@code A-Z a-z 0-9 . _ : @ -}) is a 400.
 */
final class TenantKey {

	static final Pattern ID = Pattern.compile("[A-Za-z0-9._:@-]{1,64}");

	private static final Pattern NOT_IN_AN_ID = Pattern.compile("[^A-Za-z0-9._:@-]");

	static final String ADDRESS = "address:";

	private final String header;

	TenantKey(String header) {
		this.header = (header != null && !header.isBlank()) ? header.strip() : null;
	}

	/**
	 * Tells whose a request is.
	 * @param request the request
	 * @return its tenant's id
	 * @throws ResponseStatusException (400) if the header's value is not a tenant id
	 */
	String of(HttpServletRequest request) {
		String id = (this.header != null) ? request.getHeader(this.header) : null;
		if (id == null || id.isBlank()) {
			return address(request.getRemoteAddr());
		}
		if (!ID.matcher(id).matches()) {
			// The value is not echoed: it is whatever the sender put in a header.
			throw new ResponseStatusException(BAD_REQUEST,
					this.header + " must be 1 to 64 characters of A-Z a-z 0-9 . _ : @ -");
		}
		return id;
	}

	/**
	 * The tenant of requests without the header: their remote address, as a tenant id (an
	 * IPv6 zone's {@code %} becomes {@code _}).
	 */
	static String address(String remoteAddress) {
		String id = ADDRESS + NOT_IN_AN_ID.matcher(String.valueOf(remoteAddress)).replaceAll("_");
		return (id.length() <= 64) ? id : id.substring(0, 64);
	}

}
