package dev.offload.template;

import org.jspecify.annotations.Nullable;

/**
 * Tells which tenant the current call works for, when its attributes name none: an
 * {@link OffloadTemplate} or {@link OffloadInvoker} asks it on the calling thread as it
 * opens a session (a joined session keeps its own tenant). A web application resolves it
 * from the request, a batch job from its job. <pre>{@code
 * TenantResolver resolver = () -> MDC.get("tenant");
 * OffloadTemplate template = new OffloadTemplate(registry, BatchPolicy.DEFAULTS, BatchListener.NONE, resolver);
 * }</pre>
 */
@FunctionalInterface
public interface TenantResolver {

	/**
	 * Resolves no tenant: sessions are served as
	 * {@link dev.offload.TenantPolicy#DEFAULT_TENANT}.
	 */
	TenantResolver NONE = () -> null;

	/**
	 * Returns the tenant of the current call.
	 * @return the tenant (1 to 64 characters of letters, digits and {@code . _ : @ -}),
	 * or {@code null} for none
	 */
	@Nullable String currentTenant();

}
