package dev.offload.sample.web;

import java.util.function.Supplier;

import dev.offload.template.TenantResolver;

/**
 * The tenant of the sessions a Monte Carlo job opens, so that the device's streams and
 * memory are shared among tenants too, not only the job queue's slots: set around the
 * job's start on whichever thread starts it (the request's, or the queue's dispatcher),
 * since a queued job starts off its request's thread. Offload's template and
 * {@code @Offload} ask this resolver when a session names no tenant; elsewhere it
 * resolves none (the default tenant).
 */
final class JobTenant implements TenantResolver {

	private static final ThreadLocal<String> current = new ThreadLocal<>();

	/**
	 * Runs a call whose sessions are a tenant's.
	 * @param <T> the call's result
	 * @param tenant the tenant
	 * @param call the call
	 * @return its result
	 */
	static <T> T as(String tenant, Supplier<T> call) {
		String outer = current.get();
		current.set(tenant);
		try {
			return call.get();
		}
		finally {
			if (outer != null) {
				current.set(outer);
			}
			else {
				current.remove();
			}
		}
	}

	@Override
	public String currentTenant() {
		return current.get();
	}

}
