package dev.offload.spring.web;

import java.security.Principal;
import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.server.ResponseStatusException;

import dev.offload.TenantPolicy;
import dev.offload.template.TenantResolver;

/**
 * A {@link TenantResolver} that reads the servlet request the calling thread serves: the
 * value of a header (such as {@code X-Tenant-Id}) when one is configured and present,
 * else, when enabled, the name of the request's authenticated principal, else none (the
 * session is {@link TenantPolicy#DEFAULT_TENANT}'s). Off a request's thread it resolves
 * none. Configure the header only behind a gateway that authenticates clients and sets
 * it: a client that chooses its own tenant gets a share per name.
 * <p>
 * A header value that is not a tenant name (1 to 64 characters of letters, digits and
 * {@code . _ : @ -}) fails the call with 400 Bad Request, without echoing the value. A
 * principal's name is the tenant with each other character replaced by {@code _}, cut at
 * 64 characters.
 */
public final class RequestTenantResolver implements TenantResolver {

	private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9._:@-]{1," + TenantPolicy.MAX_TENANT_LENGTH + "}");

	private static final Pattern NOT_IN_A_TENANT = Pattern.compile("[^A-Za-z0-9._:@-]");

	private final @Nullable String header;

	private final boolean principal;

	/**
	 * Creates a resolver.
	 * @param header the request header that names the tenant, or {@code null} (or blank)
	 * for none
	 * @param principal whether the authenticated principal's name is the tenant when the
	 * header is absent
	 */
	public RequestTenantResolver(@Nullable String header, boolean principal) {
		this.header = (header != null && !header.isBlank()) ? header.strip() : null;
		this.principal = principal;
	}

	@Override
	public @Nullable String currentTenant() {
		if (!(RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes)) {
			return null;
		}
		HttpServletRequest request = attributes.getRequest();
		if (this.header != null) {
			String value = request.getHeader(this.header);
			if (value != null && !value.isBlank()) {
				if (!TENANT.matcher(value).matches()) {
					throw new ResponseStatusException(HttpStatus.BAD_REQUEST, this.header + " must be 1 to "
							+ TenantPolicy.MAX_TENANT_LENGTH + " characters of letters, digits and . _ : @ -");
				}
				return value;
			}
		}
		if (this.principal) {
			Principal user = request.getUserPrincipal();
			String name = (user != null) ? user.getName() : null;
			if (name != null && !name.isBlank()) {
				String tenant = NOT_IN_A_TENANT.matcher(name).replaceAll("_");
				return (tenant.length() <= TenantPolicy.MAX_TENANT_LENGTH) ? tenant
						: tenant.substring(0, TenantPolicy.MAX_TENANT_LENGTH);
			}
		}
		return null;
	}

	/**
	 * Returns the header that names the tenant.
	 * @return the header, or {@code null} if none is read
	 */
	public @Nullable String header() {
		return this.header;
	}

	/**
	 * Tells whether the principal's name is the tenant when the header is absent.
	 * @return whether the principal is read
	 */
	public boolean principal() {
		return this.principal;
	}

}
